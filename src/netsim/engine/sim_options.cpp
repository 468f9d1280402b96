#include "netsim/engine/sim_options.hpp"

#include "core/options.hpp"

namespace evb::netsim {

void SimModelOptions::resolve() {
    sim.ib.validate(); // here, for every command that simulates, before anything divides by the model's sizes
    sim.mode = parse_sim_mode(mode);
    sim.host_latency = HostLatency::parse(host_latency);
    const bool cuttable = sim.mode == SimMode::packet && sim.ib.link_latency.count() > 0 && sim.ib.credit_latency.count() > 0;
    if (threads > 256) throw std::invalid_argument("--sim-threads must be within 1..256");
    if (threads > 1 && sim.mode != SimMode::packet) throw std::invalid_argument("--sim-threads above 1 needs --mode packet");
    if (threads > 1 && !cuttable)
        throw std::invalid_argument(
            "--sim-threads above 1 needs --link-latency and --credit-latency above zero (the threads run that far apart)");
    // One unless asked: threads that share their cores with other processes wait for one another
    // at every window and run slower than one (docs/netsim.md).
    sim.threads = threads == 0 ? 1 : threads;
    sim.parts = sim.threads;
}

void declare_sim_model_options(OptionSet& set, SimModelOptions& o) {
    IbParams& ib = o.sim.ib;
    set.real("link-rate", ib.link_gbps, "Gb/s", "data rate of every link whose width and speed the fabric does not give, Gb/s");
    set.on_off("topology-rates", o.sim.topology_rates,
               "each link at the width and speed the fabric gives (a `--topology` dump, `--host-links`, `--switch-links`): 4xEDR 100, "
               "4xHDR 200, 4xNDR 400, 4xFDR 54.5, 4xQDR 32 Gb/s; off: every link at `--link-rate`");
    set.duration("link-latency", ib.link_latency, "propagation + link controller, after serialisation");
    set.duration("credit-latency", ib.credit_latency, "a flit leaves an input buffer -> its credit is at the sender");
    set.duration("switch-latency", ib.switch_latency, "head of a packet in a switch -> it may be arbitrated");
    set.whole("mtu", ib.mtu, "B", "payload bytes per packet").above_zero();
    set.whole("header-bytes", ib.header_bytes, "B", "per-packet header (LRH + BTH)");
    set.whole("footer-bytes", ib.footer_bytes, "B", "per-packet CRCs (ICRC + VCRC)");
    set.whole("flit-bytes", ib.flit_bytes, "B", "flit and credit block size").above_zero();
    set.size("buffer", ib.buffer_bytes, "input buffer per port per VL (must hold one MTU packet)").above_zero();
    set.whole("vls", ib.vls, "n", "VLs per port").above_zero();
    set.whole("traffic-vls", ib.traffic_vls, "n", "VLs the traffic uses (destination modulo)")
        .shown_default("1; 4 with --transport sim (the thesis' model, bench/barrel_start_and_vls.sh)");
    set.text("host-latency", o.host_latency, "MODEL",
             "before injection: `fixed:T`, `uniform:A:B`, `lognormal:MEDIAN:SIGMA`, `file:PATH` (lines `latency weight`)");
    set.text("mode", o.mode, "MODE",
             "`flit` (reference), `aggregated` (`--aggregation` flits per event) or `packet` (exact cut-through per packet)");
    set.whole("aggregation", o.sim.aggregation, "n", "flits per event in `aggregated` mode").above_zero();
    set.size("sim-memory", o.memory,
             "memory the simulation may plan with: a fabric whose estimate (routing tables, the simulator's queues, the units' state) is "
             "larger is refused before routing")
        .shown_default("MemAvailable")
        .above_zero();
    set.on_off("checks", o.sim.checks, "check credits and buffer occupancy on every change, and that nothing is lost");
    set.whole("sim-threads", o.threads, "n",
              "threads that run the fabric, each a part of it (packet mode); every figure but the wall time is the same for any count")
        .shown_default("1")
        .above_zero();
}

} // namespace evb::netsim
