// PULL without EM, --on-failure continue: an RU's record, per event class (e mod B, the BU that
// builds it), of how far it has served that class: below() is the first round whose fragment it
// has not written completely, asked_below() one past the highest round asked for. When a BU is
// lost, every surviving RU reports both for its class: the survivors take over from the lowest
// report (no event lost) and count as re-assigned what the lost BU had asked for.
#pragma once
#include <cstdint>
#include <set>
#include <vector>

namespace evb {

class ClassDelivery {
public:
    explicit ClassDelivery(std::uint32_t classes) : classes_(classes) {}
    void asked(std::uint32_t cls, std::uint64_t round);
    void written(std::uint32_t cls, std::uint64_t round);
    std::uint64_t below(std::uint32_t cls) const { return classes_[cls].below; }
    std::uint64_t asked_below(std::uint32_t cls) const { return classes_[cls].asked_below; }

private:
    struct Class {
        std::uint64_t below = 0;
        std::uint64_t asked_below = 0;
        std::set<std::uint64_t> ahead; // written rounds above `below` (a slot may lag behind the others)
    };
    std::vector<Class> classes_;
};

} // namespace evb
