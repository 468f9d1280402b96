# Sourced before running the sanitizer build's tests (launch/build-and-test.sh): any report fails
# the test, since the process aborts with a non-zero status.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
# Leaks inside third-party libraries evbench cannot free (lsan.supp says which and why).
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
