// The text readers' number parser: its short-decimal fast path gives exactly std::from_chars' float
// and end for every input.
#include <gtest/gtest.h>

#include <charconv>
#include <cstring>
#include <string>

#include "data/format/text_chunks.hpp"  // internal
#include "parsgd/util/rng.hpp"

namespace parsgd {
namespace {

// std::from_chars of [p, end) (no leading '+', which ParseFloat handles first): its end (null
// where it read no number) and bits, and whether the number is out of float's range (ParseFloat's
// own rule then, tested with the readers).
struct Expected {
  const char* end;
  uint32_t bits;
  bool out_of_range;
};
Expected Reference(const char* p, const char* end) {
  float v = 0;
  const auto [ptr, ec] = std::from_chars(p, end, v);
  if (ec == std::errc::result_out_of_range) return {ptr, 0, true};
  if (ec != std::errc()) return {nullptr, 0, false};
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return {ptr, bits, false};
}

TEST(ParseFloat, AgreesWithFromCharsOnDecimalsOfEveryShape) {
  Rng rng(11);
  const char alphabet[] = "0123456789.-eE,x";
  std::vector<std::string> cases = {"1.", ".5", "-.5", "-0", "0", "-", ".", "1.2.3", "9999999",
                                    "10000000", "0.0000001", "0.00000000001", "1e5", "12x",
                                    "16777217", "16777216", "1677721.6", "0.16777216", "-0.16777217",
                                    "0.1", "-3.1415926", "3.14159", "007.50",
                                    "1234567890123456789", "12345678901234567890123",
                                    "0.0000000000000000000000016", "000000000000000000016",
                                    "99999999999999999999.5", "18446744073709551617"};
  for (int i = 0; i < 200000; ++i) {
    std::string s;
    const auto length = 1 + rng.Uniform(12);
    for (uint64_t k = 0; k < length; ++k) {
      // Mostly digits, a point or a sign now and then, rarely anything else.
      const auto r = rng.Uniform(20);
      s += r < 14 ? static_cast<char>('0' + rng.Uniform(10))
                  : alphabet[10 + rng.Uniform(sizeof(alphabet) - 11)];
    }
    cases.push_back(s);
  }
  for (const std::string& s : cases) {
    const char* end = s.data() + s.size();
    const auto [ref_end, ref_bits, out_of_range] = Reference(s.data(), end);
    if (out_of_range) continue;
    float v = 0;
    const char* got = data_internal::ParseFloat(s.data(), end, &v);
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    if (ref_end == nullptr) {
      EXPECT_EQ(got, nullptr) << s;
      continue;
    }
    ASSERT_EQ(got, ref_end) << s;
    if (std::isfinite(v)) {
      EXPECT_EQ(bits, ref_bits) << s;
    }
  }
}

}  // namespace
}  // namespace parsgd
