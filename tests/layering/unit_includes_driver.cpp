// Must not compile: units never see a driver.
#include "units/builder_unit.hpp"
#include "drivers/tcp/tcp_transport.hpp"
