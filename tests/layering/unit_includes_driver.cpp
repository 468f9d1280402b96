// Must not compile: units never see a driver.
#include "builder_unit.hpp"
#include "tcp_transport.hpp"
