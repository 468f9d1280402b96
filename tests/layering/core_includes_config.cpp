// Must not compile: core services sit below every layer.
#include "core/options.hpp"
#include "units/config.hpp"
