// The pieces that keep strangers and hostile input out, in process: the run key, the bounded
// reader of user files, the escaping of echoed text, the control plane's typed frames.
#include "config_error.hpp"
#include "control_message.hpp"
#include "input_file.hpp"
#include "printable_text.hpp"
#include "run_command.hpp"
#include "run_key.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <fstream>

using namespace evb;

namespace {
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST(RunKey, AGivenKeyShorterThan32CharactersIsRefused) {
    EXPECT_NE(error_of([] { RunKey::given("short", "EVBENCH_RUN_KEY"); }).find("EVBENCH_RUN_KEY: the run key has 5 characters"), std::string::npos);
    EXPECT_EQ(error_of([] { RunKey::given(std::string(32, 'k') + "\n", "EVBENCH_RUN_KEY"); }), "");
}

TEST(RunKey, MacsDifferByKeyAndAJobKeyIsTheSameOnEveryRank) {
    const std::uint8_t m[] = {1, 2, 3};
    EXPECT_FALSE(same_digest(RunKey::random().mac(m), RunKey::random().mac(m)));
    EXPECT_TRUE(same_digest(RunKey::from_job("mpirun 42").mac(m), RunKey::from_job("mpirun 42").mac(m)));
    EXPECT_FALSE(same_digest(RunKey::from_job("mpirun 42").mac(m), RunKey::from_job("mpirun 43").mac(m)));
    EXPECT_FALSE(RunKey::from_job("x").secret());
    EXPECT_NE(RunKey::from_job("x").origin().find("no secret"), std::string::npos);
}

// Before: --topology /dev/zero and friends read until memory ran out.
TEST(InputFile, ADeviceADirectoryAPipeAndAFileAboveItsLimitAreRefusedInOneLine) {
    EXPECT_NE(error_of([] { read_input_file("/dev/zero", 1024, "--topology"); }).find("--topology '/dev/zero' is not a regular file (a device"),
              std::string::npos);
    EXPECT_NE(error_of([] { read_input_file("/tmp", 1024, "--config"); }).find("(a directory)"), std::string::npos);
    const std::string fifo = test::temp_path("input.fifo");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(error_of([&] { read_input_file(fifo, 1024, "--lfts"); }).find("(a pipe)"), std::string::npos);
    const std::string big = test::temp_path("input.big");
    std::ofstream(big) << std::string(2000, 'x');
    EXPECT_NE(error_of([&] { read_input_file(big, 1024, "--config"); }).find("has 2000 bytes, more than the 1 KiB"), std::string::npos);
    EXPECT_EQ(read_input_file(big, 2000, "--config").size(), 2000u);
    EXPECT_NE(error_of([] { read_input_file("/nonexistent/x", 10, "--config"); }).find("No such file"), std::string::npos);
}

TEST(PrintableText, ControlBytesAreEscapedAndLongTextIsCut) {
    EXPECT_EQ(printable_text("a\x1b[2Jb\n"), "a\\x1b[2Jb\\x0a");
    EXPECT_EQ(printable_text("gr\xc3\xbc\xc3\x9f \xff"), "gr\xc3\xbc\xc3\x9f \\xff");
    const std::string cut = printable_text(std::string(100000, 'y'));
    EXPECT_LT(cut.size(), 400u);
    EXPECT_NE(cut.find("(100000 bytes in all)"), std::string::npos);
    EXPECT_LE(cut_text(std::string(5000, 'z'), 4096).size(), 4096u);
}

TEST(ControlMessage, AFrameDecodesToItsTypeAndABodyOffItsSchemaIsRefused) {
    const std::string f = encode_control_frame({ControlType::done, {{"losses", 2}}});
    std::uint32_t len = 0;
    std::memcpy(&len, f.data(), 4);
    ASSERT_EQ(len + 4, f.size());
    auto m = decode_control_payload(std::string_view(f).substr(4));
    ASSERT_TRUE(std::holds_alternative<ControlMessage>(m));
    EXPECT_EQ(std::get<ControlMessage>(m).type, ControlType::done);
    EXPECT_THROW(encode_control_frame({ControlType::done, {{"losses", "two"}}}), std::invalid_argument);
    EXPECT_THROW(encode_control_frame({ControlType::link_lost, {{"error", "x"}}}), std::invalid_argument);
    auto bad = decode_control_payload(std::string("\x0b", 1) + R"({"error": 5})");
    ASSERT_TRUE(std::holds_alternative<std::string>(bad));
    EXPECT_EQ(std::get<std::string>(bad), "its stats message lacks the field 'stats'");
    auto lost = decode_control_payload(std::string("\xff", 1) + R"({"error":"x"})");
    EXPECT_EQ(std::get<std::string>(lost), "a frame of unknown type 255");
}
