#include <cstdio>
int main() { std::puts(NETSMITH_VERSION); }
