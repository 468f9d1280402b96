#include "netsim/engine/host_latency.hpp"

#include "core/config_error.hpp"
#include "core/input_file.hpp"
#include "core/quantity.hpp"

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace evb::netsim {
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
    return parts;
}

} // namespace

HostLatency HostLatency::fixed(Picoseconds value) {
    HostLatency h;
    h.a_ = value;
    h.spec_ = "fixed:" + std::to_string(value.count()) + "ps";
    return h;
}

HostLatency HostLatency::parse(const std::string& spec) {
    auto bad = [&](const std::string& why) { return std::invalid_argument("host latency '" + spec + "': " + why); };
    HostLatency h;
    h.spec_ = spec;
    auto colon = spec.find(':');
    std::string kind = spec.substr(0, colon);
    std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
    if (kind == "file") {
        std::istringstream in;
        try {
            in.str(read_input_file(rest, config_file_limit, "the histogram file"));
        } catch (const ConfigError& e) {
            throw bad(e.what());
        }
        double total = 0;
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            if (line.empty() || line[0] == '#') continue;
            std::istringstream fields(line);
            std::string value;
            double weight = -1;
            if (!(fields >> value >> weight) || weight < 0) throw bad("line " + std::to_string(n) + " is not 'latency weight'");
            Picoseconds v;
            try {
                v = parse_duration(value);
            } catch (const std::invalid_argument& e) {
                throw bad("line " + std::to_string(n) + ": " + e.what());
            }
            total += weight;
            h.values_.push_back(v);
            h.cumulative_.push_back(total);
        }
        if (h.values_.empty() || total <= 0) throw bad("histogram has no weight");
        for (auto& c : h.cumulative_) c /= total;
        h.kind_ = Kind::histogram;
        return h;
    }
    auto parts = split(rest, ':');
    auto duration = [&](const std::string& text) {
        try {
            return parse_duration(text);
        } catch (const std::invalid_argument& e) {
            throw bad(e.what());
        }
    };
    if (kind == "fixed" && parts.size() == 1) {
        h.a_ = duration(parts[0]);
    } else if (kind == "uniform" && parts.size() == 2) {
        h.kind_ = Kind::uniform;
        h.a_ = duration(parts[0]);
        h.b_ = duration(parts[1]);
        if (h.b_ < h.a_) throw bad("upper bound below lower bound");
    } else if (kind == "lognormal" && parts.size() == 2) {
        h.kind_ = Kind::lognormal;
        h.a_ = duration(parts[0]);
        char* end = nullptr;
        h.sigma_ = std::strtod(parts[1].c_str(), &end);
        if (end == parts[1].c_str() || *end || !(h.sigma_ >= 0) || h.sigma_ > 5) throw bad("sigma must be a number within 0..5");
    } else {
        throw bad("expected fixed:T, uniform:A:B, lognormal:MEDIAN:SIGMA or file:PATH");
    }
    if (h.a_.count() < 0) throw bad("negative latency");
    return h;
}

Picoseconds HostLatency::draw(double u1, double u2) const {
    switch (kind_) {
    case Kind::fixed: return a_;
    case Kind::uniform: return a_ + Picoseconds(static_cast<std::int64_t>(u1 * static_cast<double>((b_ - a_).count())));
    case Kind::lognormal: {
        // Box-Muller from two uniforms; u1 in (0, 1].
        double z = std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(2.0 * M_PI * u2);
        return Picoseconds(static_cast<std::int64_t>(static_cast<double>(a_.count()) * std::exp(sigma_ * z)));
    }
    case Kind::histogram: {
        auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), u1);
        auto i = std::min<std::size_t>(static_cast<std::size_t>(it - cumulative_.begin()), values_.size() - 1);
        return values_[i];
    }
    }
    return a_;
}

Picoseconds HostLatency::mean() const {
    switch (kind_) {
    case Kind::fixed: return a_;
    case Kind::uniform: return Picoseconds((a_.count() + b_.count()) / 2);
    case Kind::lognormal: return Picoseconds(static_cast<std::int64_t>(static_cast<double>(a_.count()) * std::exp(sigma_ * sigma_ / 2)));
    case Kind::histogram: {
        double sum = 0, prev = 0;
        for (std::size_t i = 0; i < values_.size(); ++i) {
            sum += static_cast<double>(values_[i].count()) * (cumulative_[i] - prev);
            prev = cumulative_[i];
        }
        return Picoseconds(static_cast<std::int64_t>(sum));
    }
    }
    return a_;
}

} // namespace evb::netsim
