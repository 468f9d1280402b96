// Must not compile: drivers never know events.
#include "drivers/tcp/tcp_transport.hpp"
#include "units/builder_unit.hpp"
