// The translation unit the tests' precompiled header (tests/CMakeLists.txt: test_common_pch)
// is built for; it compiles to nothing.
