# Sourced by both quick-start commands (build-and-run.sh, build-and-test.sh): configures build/
# the one way, so that the second reuses what the first compiled (Release, warnings as errors;
# the tests join the build once GoogleTest is installed). A compiler cache (ccache, in its own
# directory outside the clone) serves repeated builds on the same machine; CCACHE_DISABLE=1
# builds cold. CMake takes the launcher from the environment for every build directory the
# calling script configures.
if command -v ccache >/dev/null; then
  # The test binaries' precompiled header: ccache caches what includes it only with these.
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_WERROR=ON >/dev/null
