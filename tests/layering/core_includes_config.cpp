// Must not compile: core services sit below every layer.
#include "options.hpp"
#include "config.hpp"
