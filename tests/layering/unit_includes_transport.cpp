// Must not compile: units never see the transport interface either (the executor translates).
#include "builder_unit.hpp"
#include "transport.hpp"
