#include <cstdio>

int main() {
  std::puts("parsgd: under construction");
  return 0;
}
