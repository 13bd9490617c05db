"""MLPClassifier: parsgd's multi-layer perceptron (ReLU hidden layers on oneDNN, a softmax
output), trained by parallel SGD under any scheme but striped."""

import numpy as np

from . import _base, _classifier, _linear, _settings


@_base.with_keywords(own=[("verbose", 0, _linear.VERBOSE_DOC),
                          ("class_weight", None, _linear.CLASS_WEIGHT_DOC), *_base.EARLY_STOPPING],
                     names=_settings.MLP_NAMES,
                     exclude={"solver", "shrinking", "bias", "backend", "require-gpu",
                              "loss-epsilon", "multiclass", "asgd"})
class MLPClassifier(_classifier.ParsgdClassifier):
    """A multi-layer perceptron classifier: hidden_layer_sizes ReLU layers, then one softmax
    output per class (two classes too). Inputs are scaled by their largest absolute value
    (normalize='maxabs', kept in the model).

    Fitted attributes: classes_, coefs_ (per layer a read-only inputs x outputs view of the
    model's weights), intercepts_, n_features_in_, n_iter_, history_, settings_.
    """

    _views = ("coefs_", "intercepts_")

    def _model_kind(self, n_classes):
        return "mlp", False

    def _set_views(self):
        params = self._model.params
        self.coefs_, self.intercepts_ = [], []
        for inputs, outputs, weights_at, bias_at in self._model.layers:
            self.coefs_.append(_base.read_only(
                params[weights_at:weights_at + inputs * outputs].reshape(inputs, outputs)))
            self.intercepts_.append(_base.read_only(params[bias_at:bias_at + outputs]))

    def predict_proba(self, X):
        """Class probabilities (n_samples, n_classes), classes as classes_ orders them."""
        return self._probabilities(X)

    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))
