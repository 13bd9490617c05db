# Experiment 3, restyled: a few configurations of a 3-period-* result folder (docs/experiments/
# period.json's grid, so the same blocks in both), suboptimality f - f* against training seconds,
# log y (objective.dat's columns 8-10: the mean suboptimality, the lowest run's, the highest's).
# Run in the folder: gnuplot period_selected.gp (docs/experiments/figures.sh does); writes
# period_selected.svg. Blocks of objective.dat: 0 hogwild sgd, 3 sync momentum, 4/7/8/11 average
# sgd with period 1/10/20/epoch, 12/13 average momentum period 1 without/with --average-state.
set datafile missing 'NaN'
set grid
set key inside top right
set style fill transparent solid 0.15 noborder
set title 'suboptimality f - f* vs training seconds (mean over repeats, band: lowest to highest run)'
set logscale y
set xlabel 'training seconds (mean over repeats)'
set ylabel 'suboptimality f - f*'
set terminal svg size 1000,560 dynamic
set termoption noenhanced
set output 'period_selected.svg'
plot \
  'objective.dat' index 0 using 2:9:10 with filledcurves lt 1 notitle, \
  '' index 0 using 2:8 with linespoints lt 1 pt 7 ps 0.5 title 'hogwild, sgd', \
  '' index 3 using 2:9:10 with filledcurves lt 2 notitle, \
  '' index 3 using 2:8 with linespoints lt 2 pt 7 ps 0.5 title 'sync, momentum', \
  '' index 4 using 2:9:10 with filledcurves lt 3 notitle, \
  '' index 4 using 2:8 with linespoints lt 3 pt 7 ps 0.5 title 'average, sgd, K = 1', \
  '' index 7 using 2:9:10 with filledcurves lt 4 notitle, \
  '' index 7 using 2:8 with linespoints lt 4 pt 7 ps 0.5 title 'average, sgd, K = 10', \
  '' index 8 using 2:9:10 with filledcurves lt 5 notitle, \
  '' index 8 using 2:8 with linespoints lt 5 pt 7 ps 0.5 title 'average, sgd, K = 20', \
  '' index 11 using 2:9:10 with filledcurves lt 6 notitle, \
  '' index 11 using 2:8 with linespoints lt 6 pt 7 ps 0.5 title 'average, sgd, K = epoch', \
  '' index 12 using 2:9:10 with filledcurves lt 7 notitle, \
  '' index 12 using 2:8 with linespoints lt 7 pt 7 ps 0.5 title 'average, momentum, K = 1', \
  '' index 13 using 2:9:10 with filledcurves lt 8 notitle, \
  '' index 13 using 2:8 with linespoints lt 8 pt 7 ps 0.5 title 'average, momentum, K = 1, --average-state'
