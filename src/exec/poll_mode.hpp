// What a reactor thread does when a pass over its transport finds nothing: poll again (spin), sleep
// in the transport's wait object at once (event), or spin a little first, then sleep (adaptive).
#pragma once
#include <string>

namespace evb {

enum class PollMode { spin, adaptive, event };
std::string to_string(PollMode);

} // namespace evb
