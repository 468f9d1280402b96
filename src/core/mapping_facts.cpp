#include "core/mapping_facts.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace evb {

MappingFacts mapping_facts(const void* address) {
    MappingFacts f;
    const auto at = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long long start = 0, end = 0;
        // A mapping's first line is "start-end perms ...", its fields "Name:   value kB".
        if (line.find(':') > line.find(' ') && std::sscanf(line.c_str(), "%llx-%llx", &start, &end) == 2) {
            if (inside) break;
            inside = at >= start && at < end;
            continue;
        }
        if (!inside) continue;
        f.found = true;
        unsigned long long kb = 0;
        const auto name = line.substr(0, line.find(':'));
        if (std::sscanf(line.c_str() + name.size() + 1, "%llu", &kb) != 1) continue;
        if (name == "Size")
            f.size_bytes = kb * 1024;
        else if (name == "KernelPageSize")
            f.kernel_page_bytes = kb * 1024;
        else if (name == "AnonHugePages" || name == "Private_Hugetlb" || name == "Shared_Hugetlb")
            f.huge_bytes += kb * 1024;
        else if (name == "Locked")
            f.locked_bytes = kb * 1024;
    }
    return f;
}

} // namespace evb
