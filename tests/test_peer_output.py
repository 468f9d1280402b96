#!/usr/bin/env python3
"""bench/peer_output.py on what the peer tools printed here (tests/peer_output/, captured from
real runs: qperf and iperf3 on loopback, fi_pingpong on tcp;ofi_rxm, ucx_perftest on UCX_TLS=tcp,
ib_write_bw -b and qperf rc_rdma_write_bw on soft-RoCE in the VM), and its refusals."""
import pathlib
import sys
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "bench"))
import peer_output  # noqa: E402


def fixture(name):
    return (HERE / "peer_output" / name).read_text()


class Figures(unittest.TestCase):
    def test_qperf_with_its_aligned_columns(self):
        # 'bw        =  5.2 GB/sec': the spaces that made verbs_bench.sh's grep 'bw =' find nothing.
        self.assertAlmostEqual(peer_output.qperf(fixture("qperf_tcp_bw.txt")), 5.2e9 * 8 / 1e9)
        self.assertAlmostEqual(peer_output.qperf(fixture("qperf_rc_rdma_write_bw.txt")), 48.2e6 * 8 / 1e9)

    def test_ib_write_bw_average_column(self):
        self.assertAlmostEqual(peer_output.ib_write_bw(fixture("ib_write_bw_bidirectional.txt")), 83.90 * 8 / 1e3)

    def test_fi_pingpong_and_ucx_perftest(self):
        self.assertAlmostEqual(peer_output.fi_pingpong(fixture("fi_pingpong.txt")), 2281.08 * 8 * 1.048576 / 1000)
        # A longer run counts its messages in thousands: '1m  1k  =1k  2.9g ...'.
        self.assertAlmostEqual(peer_output.fi_pingpong(fixture("fi_pingpong_counts_in_k.txt")), 4602.92 * 8 * 1.048576 / 1000)
        self.assertAlmostEqual(peer_output.ucx_perftest(fixture("ucx_perftest.txt")), 86.20 * 8 * 1.048576 / 1000)

    def test_iperf3_receivers_sum(self):
        self.assertGreater(peer_output.iperf3(fixture("iperf3.json")), 0)

    def test_sections_of_a_vm_run(self):
        text = "boot\n@@ bi.ib_write_bw\n" + fixture("ib_write_bw_bidirectional.txt") + "@@ evb --credits 2\n# system: x\n"
        parts = peer_output.sections(text)
        self.assertEqual(sorted(parts), ["bi.ib_write_bw", "evb --credits 2"])
        self.assertAlmostEqual(peer_output.figure_of("bi.ib_write_bw", parts["bi.ib_write_bw"]), 83.90 * 8 / 1e3)


class Refusals(unittest.TestCase):
    def test_every_parser_names_its_tool_when_the_figure_is_missing(self):
        for tool, parse in peer_output.TOOLS.items():
            with self.assertRaisesRegex(peer_output.PeerOutputError, "^" + tool + ": .*connection refused"):
                parse("connection refused\n")

    def test_ib_write_bw_that_measured_nothing_is_refused(self):
        # What ib_write_bw -D printed on rxe in the VM: 0 iterations, 0.00 MB/sec.
        text = fixture("ib_write_bw_bidirectional.txt").replace("83.90", "0.00")
        with self.assertRaisesRegex(peer_output.PeerOutputError, "measured no iteration"):
            peer_output.ib_write_bw(text)

    def test_a_section_of_an_unknown_tool(self):
        with self.assertRaisesRegex(peer_output.PeerOutputError, "no parser for 'netperf'"):
            peer_output.figure_of("x.netperf", "")


if __name__ == "__main__":
    unittest.main()
