#include "sim_options.hpp"

#include "cli_options.hpp"
#include "quantity.hpp"

#include <CLI/CLI.hpp>

namespace evb::netsim {

void SimModelOptions::resolve() {
    sim.mode = parse_sim_mode(mode);
    sim.host_latency = HostLatency::parse(host_latency);
}

void add_sim_model_options(CLI::App& app, SimModelOptions& o) {
    IbParams& ib = o.sim.ib;
    app.add_option("--link-rate", ib.link_gbps, "link data rate in Gb/s")->capture_default_str();
    add_quantity<Picoseconds>(app, "--link-latency", ib.link_latency, parse_duration, "propagation + link controller", "170ns");
    add_quantity<Picoseconds>(app, "--credit-latency", ib.credit_latency, parse_duration,
                              "from a block leaving an input buffer to its credit at the sender", "170ns");
    add_quantity<Picoseconds>(app, "--switch-latency", ib.switch_latency, parse_duration, "packet head to arbitration in a switch", "0ns");
    app.add_option("--mtu", ib.mtu, "payload bytes per packet")->capture_default_str();
    app.add_option("--header-bytes", ib.header_bytes, "per-packet header (LRH + BTH)")->capture_default_str();
    app.add_option("--footer-bytes", ib.footer_bytes, "per-packet CRCs (ICRC + VCRC)")->capture_default_str();
    app.add_option("--flit-bytes", ib.flit_bytes, "flit and credit block size")->capture_default_str();
    add_quantity<std::uint64_t>(app, "--buffer", ib.buffer_bytes, parse_size, "input buffer per port per VL", "64KiB");
    app.add_option("--vls", ib.vls, "data VLs per port")->capture_default_str();
    app.add_option("--traffic-vls", ib.traffic_vls, "VLs the traffic uses, by destination modulo")->capture_default_str();
    app.add_option("--host-latency", o.host_latency, "before injection: fixed:T, uniform:A:B, lognormal:MEDIAN:SIGMA, file:PATH")
        ->capture_default_str();
    app.add_option("--mode", o.mode, "flit (reference), aggregated (k flits per event) or packet (exact cut-through per packet)")
        ->capture_default_str();
    app.add_option("--aggregation", o.sim.aggregation, "flits per event in aggregated mode")->capture_default_str();
    app.add_flag("--checks", o.sim.checks, "check credit and buffer conservation on every change");
}

} // namespace evb::netsim
