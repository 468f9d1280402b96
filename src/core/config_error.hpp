// Bad input: a one-line message naming the flag, key, file or value and what is allowed. Every
// command prints it as "evbench: error: <message>" and exits 2.
#pragma once
#include <stdexcept>

namespace evb {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace evb
