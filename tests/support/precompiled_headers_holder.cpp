// The target that precompiles the tests' common headers once (Note [Test headers precompiled],
// tests/CMakeLists.txt); every test reuses its precompiled header. Never run.
int main() { return 0; }
