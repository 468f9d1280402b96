// Must not compile: units never see the transport interface either (the executor translates).
#include "units/builder_unit.hpp"
#include "drivers/transport/transport.hpp"
