// report.html: the Markdown it is made from as HTML (escaped, tables, lists), the inline SVG
// charts (log axes, ticks, nothing to draw), and the page in a real headless browser (Debian's
// chromium): it loads with no console error and no request, its elements are there, and its
// screenshot shows the charts' lines.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "html_report.hpp"
#include "svg_chart.hpp"
#include "test_support.hpp"

namespace parsgd {
namespace {

using testing::Contains;
using testing::ReadFile;
using testing::RunCli;

std::size_t Count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

TEST(ReportHtml, MarkdownBecomesEscapedHtml) {
  const std::string html = compare::MarkdownToHtml(
      "# parsgd compare\n\n```\nparsgd compare --train <a&b>\n```\n\nSome **bold** and `x<y` "
      "with [a link](plot.gp).\n\n- one\n  - nested\n- two <script>\n\n| # | a \\| b |\n|---|---|\n"
      "| 1 | <i> |\n\n1. first\n2. second\n");
  EXPECT_TRUE(Contains(html, "<h1 id=\"parsgd-compare\">parsgd compare</h1>")) << html;
  EXPECT_TRUE(Contains(html, "<pre><code>parsgd compare --train &lt;a&amp;b&gt;\n</code></pre>"))
      << html;
  EXPECT_TRUE(Contains(html, "<strong>bold</strong>")) << html;
  EXPECT_TRUE(Contains(html, "<code>x&lt;y</code>")) << html;
  EXPECT_TRUE(Contains(html, "<a href=\"plot.gp\">a link</a>")) << html;
  EXPECT_TRUE(Contains(html, "<ul>\n<li>one<ul><li>nested</li></ul></li>\n<li>two &lt;script&gt;"))
      << html;
  EXPECT_TRUE(Contains(html, "<th>a | b</th>")) << html;
  EXPECT_TRUE(Contains(html, "<td>&lt;i&gt;</td>")) << html;
  EXPECT_TRUE(Contains(html, "<ol>\n<li>first</li>\n<li>second</li></ol>")) << html;
  EXPECT_FALSE(Contains(html, "<script")) << html;
}

TEST(ReportHtml, ChartTicksAndLogAxes) {
  EXPECT_EQ(compare::LinearTicks(1, 8), (std::vector<double>{2, 4, 6, 8}));
  EXPECT_EQ(compare::LogTicks(0.003, 2),
            (std::vector<double>{0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2}));
  EXPECT_EQ(compare::LogTicks(1e-9, 10).size(), 11u);  // decades only over more than three
  compare::Chart chart;
  chart.title = "t <1>";
  chart.log_y = true;
  chart.series.push_back({"a", {1, 2, 3}, {0.5, 0, -1}, {}, {}});  // 0 and -1: no log
  const std::string svg = compare::SvgChart(chart);
  EXPECT_TRUE(Contains(svg, "<title>t &lt;1&gt;</title>")) << svg;
  EXPECT_EQ(Count(svg, "<polyline"), 1u);
  EXPECT_EQ(Count(svg.substr(svg.find("<polyline")), ","), 1u) << svg;  // one point drawn
  chart.series[0].y = {0, 0, 0};
  EXPECT_TRUE(Contains(compare::SvgChart(chart), "no point to draw"));
  // A share (a performance profile) spans [0, 1] whatever its data.
  compare::Chart share;
  share.share_y = true;
  share.series.push_back({"a", {1, 2}, {0.2, 0.6}, {}, {}});
  const std::string steps = compare::SvgChart(share);
  EXPECT_TRUE(Contains(steps, ">1</text>")) << steps;
  EXPECT_TRUE(Contains(steps, ">0</text>")) << steps;
}

// The PNG's pixels as RGB (8-bit RGB or RGBA, not interlaced), or empty where it is not such a PNG.
struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;
};
Image DecodePng(const std::string& png) {
  Image image;
  auto be32 = [&](std::size_t at) {
    return static_cast<uint32_t>(static_cast<uint8_t>(png[at])) << 24 |
           static_cast<uint32_t>(static_cast<uint8_t>(png[at + 1])) << 16 |
           static_cast<uint32_t>(static_cast<uint8_t>(png[at + 2])) << 8 |
           static_cast<uint32_t>(static_cast<uint8_t>(png[at + 3]));
  };
  if (png.size() < 33 || png.compare(1, 3, "PNG") != 0) return image;
  const uint32_t width = be32(16), height = be32(20);
  const int depth = static_cast<uint8_t>(png[24]), type = static_cast<uint8_t>(png[25]);
  if (depth != 8 || (type != 2 && type != 6) || png[28] != 0) return image;
  const int channels = type == 6 ? 4 : 3;
  std::string compressed;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const uint32_t length = be32(at);
    if (png.compare(at + 4, 4, "IDAT") == 0) compressed += png.substr(at + 8, length);
    at += 12 + length;
  }
  const std::size_t stride = static_cast<std::size_t>(width) * channels;
  std::vector<uint8_t> raw((stride + 1) * height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(compressed.data()),
                 compressed.size()) != Z_OK) {
    return image;
  }
  std::vector<uint8_t> pixels(stride * height), previous(stride, 0);
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &pixels[y * stride];
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<std::size_t>(channels) ? out[i - channels] : 0;
      const int b = previous[i];
      const int c = i >= static_cast<std::size_t>(channels) ? previous[i - channels] : 0;
      int predictor = 0;
      switch (filter) {
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          break;
      }
      out[i] = static_cast<uint8_t>(in[i] + predictor);
    }
    std::copy(out, out + stride, previous.begin());
  }
  image.width = width;
  image.height = height;
  for (std::size_t p = 0; p < pixels.size(); p += channels) {
    image.rgb.insert(image.rgb.end(), {pixels[p], pixels[p + 1], pixels[p + 2]});
  }
  return image;
}

// The pixels within `tolerance` of colour (r, g, b).
std::size_t PixelsOf(const Image& image, int r, int g, int b, int tolerance = 24) {
  std::size_t n = 0;
  for (std::size_t p = 0; p + 2 < image.rgb.size(); p += 3) {
    n += std::abs(image.rgb[p] - r) <= tolerance && std::abs(image.rgb[p + 1] - g) <= tolerance &&
         std::abs(image.rgb[p + 2] - b) <= tolerance;
  }
  return n;
}

TEST(ReportHtml, LoadsInAHeadlessBrowserWithItsCharts) {
  if (std::system("command -v chromium > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium)";
  }
  testing::TempDir dir;
  const auto gen = RunCli("gen " + dir.File("a.svm") +
                          " --rows 400 --features 100 --nnz 8 "
                          "--seed 3");
  ASSERT_EQ(gen.status, 0) << gen.output;
  const auto gen2 = RunCli("gen " + dir.File("b.svm") +
                           " --rows 300 --features 80 --nnz 6 "
                           "--seed 4");
  ASSERT_EQ(gen2.status, 0) << gen2.output;
  const std::string out = dir.File("out");
  const auto r = RunCli("compare --train " + dir.File("a.svm") + " --train " + dir.File("b.svm") +
                        " --out " + out +
                        " --scheme hogwild,sequential --threads 2 --epochs 4 --repeats 2 "
                        "--gnuplot none");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string html = ReadFile(out + "/report.html");
  // Self-contained: nothing fetched (the SVG namespace is a name, not a request).
  EXPECT_EQ(Count(html, "src="), 0u);
  EXPECT_EQ(Count(html, "http"), Count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_FALSE(Contains(html, "<script"));

  const std::string browser =
      "chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
      "--enable-logging=stderr --v=0 --user-data-dir=" +
      dir.File("profile") + " ";
  const auto dom = testing::RunShell(browser + "--dump-dom file://" + out + "/report.html 2> " +
                                     dir.File("dom.log"));
  ASSERT_EQ(dom.status, 0) << ReadFile(dir.File("dom.log"));
  const std::string log = ReadFile(dir.File("dom.log"));
  EXPECT_FALSE(Contains(log, "CONSOLE")) << log;
  EXPECT_FALSE(Contains(log, "Failed to load")) << log;
  // The page as the browser built it: the charts (objective and suboptimality against epochs and
  // seconds for each of the two problems, two performance profiles), the tables, the sections.
  EXPECT_EQ(Count(dom.output, "<svg class=\"chart\""), 10u) << dom.output.substr(0, 2000);
  EXPECT_EQ(Count(dom.output, "<figure>"), 10u);
  EXPECT_GE(Count(dom.output, "<table>"), 5u);
  for (const char* part :
       {"<h2 id=\"results\">Results</h2>", "Distance to the optimum", "suboptimality f - f*",
        "Performance profiles", "<h2 id=\"machine\">", "(commit "}) {
    EXPECT_TRUE(Contains(dom.output, part)) << part;
  }
  // A phone-sized screenshot of the whole page: the first series' colour (#0072B2) is drawn.
  const std::string shot = dir.File("shot.png");
  const auto screenshot =
      testing::RunShell(browser + "--window-size=412,9000 --screenshot=" + shot + " file://" + out +
                        "/report.html 2> /dev/null");
  ASSERT_EQ(screenshot.status, 0) << screenshot.output;
  const Image image = DecodePng(ReadFile(shot));
  ASSERT_EQ(image.width, 412u);
  EXPECT_GT(PixelsOf(image, 0x00, 0x72, 0xB2), 300u);
  EXPECT_GT(PixelsOf(image, 0xD5, 0x5E, 0x00), 300u);  // the second series'
}

}  // namespace
}  // namespace parsgd
