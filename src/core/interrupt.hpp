// Ctrl-C and SIGTERM during a run: the first ends the run as its duration would (no new events,
// the ones under way finish, the report and the JSON cover what was measured); a second one, half
// a second or more later, ends the process at once, as the signal's default does.
#pragma once
#include <string>

namespace evb {

// Installs the handlers for SIGINT and SIGTERM (once per process).
void catch_interrupts();
// The signal that asked the run to end (SIGINT, SIGTERM), or 0.
int interrupt_signal();
// Records an interrupt that came from elsewhere (a rank heard rank 0 was interrupted) or, in
// tests, asks for one; a later real signal is then the second.
void note_interrupt(int signal);
// "SIGINT", "SIGTERM", or the number.
std::string signal_name(int signal);
// The exit code of an interrupted run: 128 + the signal, as a shell reports one (130, 143).
int interrupted_exit_code(int signal);

} // namespace evb
