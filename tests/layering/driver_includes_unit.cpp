// Must not compile: drivers never know events.
#include "tcp_transport.hpp"
#include "builder_unit.hpp"
