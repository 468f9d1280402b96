// Linux CPU lists ("0-3,8,10-11"), as sysfs writes them and as --cpus takes them.
#pragma once
#include <string>
#include <vector>

namespace evb {

// In the order given, repeats dropped (--cpus 3,1 gives the first rank cpu 3). Throws
// std::invalid_argument naming the text when it is not a list of CPU numbers and ranges.
std::vector<int> parse_cpu_list(const std::string& text);
std::string format_cpu_list(const std::vector<int>& cpus); // sorted, ranges folded: "0-3,8"

} // namespace evb
