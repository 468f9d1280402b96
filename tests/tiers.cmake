# Which test is in which tier, how long it may run, and what of the machine it needs: the one
# table of them (tests/CMakeLists.txt builds the binaries). A binary's tests are in its own tier
# unless a group below names them; every group is a gtest filter of whole suites or tests, and
# the binary's remaining tests are its default group, so no test can be left out of the table.
# Timeouts are some five times what a test took on this 2-core machine, sanitized builds three
# times that. tests/check_tiers.py (ctest: Tiers.EveryTestHasOneTierAndIsListedOnce) checks the result.
#
# CPU: ctest -j runs tests side by side. A test that starts more busy-polling processes than the
# machine has cores asks for 2 processors, so it shares the machine with at most light tests; a
# test that counts what a process does per unit of time, or a VM (QEMU's TCG on 2 vCPUs), runs alone.

set(EVB_TIMEOUT_SCALE 1)
if(EVB_SANITIZE)
  set(EVB_TIMEOUT_SCALE 3)
endif()

# evb_tier_group(TARGET LABEL TIMEOUT FILTER [PROCESSORS n] [RESOURCE_LOCK name] [RUN_SERIAL]): the tests FILTER names
# (patterns joined by ':', no '-') that no earlier group of TARGET named: the first group wins.
function(evb_tier_group target label timeout filter)
  cmake_parse_arguments(G "RUN_SERIAL" "PROCESSORS;RESOURCE_LOCK" "" ${ARGN})
  string(REGEX REPLACE ":+$" "" filter "${filter}")
  get_property(named GLOBAL PROPERTY EVB_GROUPS_${target})
  set_property(GLOBAL APPEND PROPERTY EVB_GROUPS_${target} "${filter}")
  if(named)
    list(JOIN named ":" negative)
    string(APPEND filter "-${negative}")
  endif()
  math(EXPR t "${timeout} * ${EVB_TIMEOUT_SCALE}")
  set(props LABELS ${label} TIMEOUT ${t})
  if(G_PROCESSORS)
    list(APPEND props PROCESSORS ${G_PROCESSORS})
  endif()
  if(G_RESOURCE_LOCK)
    list(APPEND props RESOURCE_LOCK ${G_RESOURCE_LOCK})
  endif()
  if(G_RUN_SERIAL)
    list(APPEND props RUN_SERIAL TRUE)
  endif()
  gtest_discover_tests(${target} TEST_FILTER "${filter}" NO_PRETTY_VALUES DISCOVERY_TIMEOUT 60 PROPERTIES ${props})
endfunction()

# evb_tier_rest(TARGET LABEL TIMEOUT [PROCESSORS n]): every test of TARGET no group named.
function(evb_tier_rest target label timeout)
  evb_tier_group(${target} ${label} ${timeout} "*" ${ARGN})
endfunction()

function(evb_tier_tests)
  # unit: all of its binary.
  evb_tier_rest(evbench_unit_tests unit 60)

  # integration, with the few of its binary that belong to system.
  set(b evbench_integration_tests)
  # Under mpirun (the message mix and the split layout on the mpi transport, an interrupted run).
  evb_tier_group(${b} system 300 "MpiTransport.*:Interrupt.*Mpirun*:*ProgressLinesAcrossProcesses.*/mpi_mpirun:*ResultSchema.*/mpi_mpirun*" PROCESSORS 2)
  # Large simulations: 4096 nodes on a 3-level tree.
  evb_tier_group(${b} system 120 "SimTransport.FourThousandNinetySixNodes*:Configs.NextUpgrade4096*")
  # The busy-polling drivers (ofi, ucx) with more endpoints than cores: on 2 cores they spend
  # most of their 4 to 16 s spinning against each other. Each of these drivers' 4-rank points
  # stays in integration; tcp, which waits in poll(), runs every point there.
  set(oversubscribed "")
  foreach(point PerUnitThreads PerUnitThreadsPushEmOwnRank Ppn2EmOwnRank LaunchLocalWithBootstrapFlag)
    string(APPEND oversubscribed "*/ProcessEndToEnd.*/Ofi*_${point}:*/ProcessEndToEnd.*/Ucx*_${point}:")
  endforeach()
  evb_tier_group(${b} system 180 "${oversubscribed}" PROCESSORS 2)
  evb_tier_group(${b} integration 180 "*/ProcessEndToEnd.*:*/ProcessFailure.*:Rails.*:FailoverOn*:*/FailoverOn*:Interrupt.*:Install.*:ProgressLines.*:*/ProgressLinesAcrossProcesses.*:*/ResultSchema.*:*/ResultFormats.*" PROCESSORS 2)
  # Runs that wait out heartbeats, stalls and grace periods (up to 12 s).
  evb_tier_group(${b} integration 120 "StallWatchdog.*")
  # Sets the machine's count of huge pages (/proc/sys/vm/nr_hugepages), which any other run may take.
  evb_tier_group(${b} integration 120 "Placement.HugePagesOn*" RUN_SERIAL)
  # Counts system calls per unit of time (strace), or a process's CPU time.
  evb_tier_group(${b} integration 120 "Bootstrap.*:RunCost.*" RUN_SERIAL)
  evb_tier_rest(${b} integration 120)

  # system: all of its binary.
  set(b evbench_system_tests)
  # A VM boot each (tests/vm/run-in-vm.sh, QEMU TCG with 2 vCPUs; its own limit is up to 1500 s).
  evb_tier_group(${b} system 1600 "Verbs.*:OfiOnSoftRoce.*:UcxOnSoftRoce.*" RUN_SERIAL)
  evb_tier_group(${b} system 300 "Slurm.*:MpiTransport.*" PROCESSORS 2)
  # The cluster in a box (tests/netns): one fabric of namespaces at a time.
  evb_tier_group(${b} system 300 "NetnsCluster.*" PROCESSORS 2 RESOURCE_LOCK netns_cluster)
  evb_tier_rest(${b} system 300)

  if(EVB_HAVE_MPI)
    # The conformance suite's mpi instances: one rank per process, six processes (the largest
    # world of the suite), every test body run in each (tests/conformance/mpi_world.cpp).
    add_test(NAME Conformance.MpiUnderMpirun
             COMMAND mpirun --oversubscribe -np 6 $<TARGET_FILE:evbench_integration_tests> --gtest_filter=EveryDriver/Conformance.*/mpi*)
    math(EXPR t "300 * ${EVB_TIMEOUT_SCALE}")
    set_tests_properties(Conformance.MpiUnderMpirun PROPERTIES LABELS system TIMEOUT ${t} PROCESSORS 2
                         ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  endif()

  # Every benchmark (bench/*.sh but the ones they source) in its smoke mode (bench/smoke.sh):
  # one short point of each kind through every parser of its peer tools' output, on this build's
  # evbench. The ones that start a peer tool (iperf3, qperf, fi_pingpong, ucx_perftest: fixed
  # ports) one at a time; evbench's own runs take free ports, so the others run beside them. The
  # two on soft-RoCE boot a VM and run alone.
  file(GLOB benches RELATIVE ${PROJECT_SOURCE_DIR}/bench CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/bench/*.sh)
  list(REMOVE_ITEM benches build_bench.sh smoke.sh netns_bed.sh ib_write_bw_in_vm.sh)
  foreach(script ${benches})
    string(REGEX REPLACE "\\.sh$" "" name ${script})
    set(locks "")
    set(binaries "")   # the benchmarks that compare two builds, or count one, take them as arguments
    if(name MATCHES "^sim_(second_against_reference|speed_side_by_side)$")
      set(binaries $<TARGET_FILE:evbench> $<TARGET_FILE:evbench>)
    elseif(name STREQUAL "sim_instructions_per_event")
      set(binaries $<TARGET_FILE:evbench>)
    endif()
    add_test(NAME BenchSmoke.${name} COMMAND bash ${PROJECT_SOURCE_DIR}/bench/${script} ${binaries})
    if(name MATCHES "^(verbs|rails)_bench$")
      math(EXPR t "1600 * ${EVB_TIMEOUT_SCALE}")
      set(props RUN_SERIAL TRUE)
    elseif(name MATCHES "^netns_")   # the cluster in a box: one fabric of namespaces at a time
      math(EXPR t "300 * ${EVB_TIMEOUT_SCALE}")
      set(props PROCESSORS 2)
      set(locks bench_ports netns_cluster)
    else()
      math(EXPR t "300 * ${EVB_TIMEOUT_SCALE}")
      set(props PROCESSORS 2)
      file(READ ${PROJECT_SOURCE_DIR}/bench/${script} text)
      if(text MATCHES "iperf3|qperf|fi_pingpong|ucx_perftest")
        set(locks bench_ports)
      endif()
    endif()
    set_tests_properties(BenchSmoke.${name} PROPERTIES LABELS system TIMEOUT ${t} ${props}
                         ENVIRONMENT "EVB_BENCH_SMOKE=1;EVB_BENCH_BUILD=${PROJECT_BINARY_DIR}")
    if(locks)
      set_tests_properties(BenchSmoke.${name} PROPERTIES RESOURCE_LOCK "${locks}")
    endif()
  endforeach()

  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  # The benchmarks' parsers of the peer tools' output (bench/peer_output.py), on captured output.
  add_test(NAME PeerOutput.FiguresAndRefusals COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_peer_output.py)
  set_tests_properties(PeerOutput.FiguresAndRefusals PROPERTIES LABELS unit TIMEOUT 60)
  # Every shell block of README.md and docs/ as a user runs it (tests/doc_commands.py), a test per
  # page: the cluster page starts mpirun and a single-node Slurm, the simulator page runs 1000
  # nodes, the testing page boots a VM (alone, as the other VM tests): system; the rest integration.
  file(GLOB pages RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/*.md)
  foreach(page ${pages})
    get_filename_component(name ${page} NAME_WE)
    add_test(NAME DocCommands.${name}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/doc_commands.py ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/${page})
    if(name STREQUAL "testing")
      set(props LABELS system RUN_SERIAL TRUE)
      set(t 900)
    elseif(name STREQUAL "cluster")   # mpirun, Slurm and the cluster in a box (tests/netns)
      set(props LABELS system PROCESSORS 2 RESOURCE_LOCK netns_cluster)
      set(t 300)
    elseif(name STREQUAL "simulator")
      set(props LABELS system PROCESSORS 2)
      set(t 300)
    else()
      set(props LABELS integration PROCESSORS 2)
      set(t 180)
    endif()
    math(EXPR t "${t} * ${EVB_TIMEOUT_SCALE}")
    set_tests_properties(DocCommands.${name} PROPERTIES ${props} TIMEOUT ${t})
  endforeach()
  add_test(NAME DocCommands.TheRunnerCatchesWhatIsWrong
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/doc_commands_selftest.py ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(DocCommands.TheRunnerCatchesWhatIsWrong PROPERTIES LABELS integration TIMEOUT 120)
  # The C++ files follow .clang-format (docs/style.md).
  add_test(NAME Style.EveryFileFollowsTheClangFormat COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_format.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(Style.EveryFileFollowsTheClangFormat PROPERTIES LABELS unit TIMEOUT 120)
  # Relative links between the pages, and the comments' pointers to a page's section, resolve.
  add_test(NAME DocLinks.EveryReferenceResolves COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/doc_links.py ${PROJECT_SOURCE_DIR})
  add_test(NAME DocLinks.TheCheckerFindsEachKindOfBrokenReference COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/doc_links.py --selftest)
  set_tests_properties(DocLinks.EveryReferenceResolves DocLinks.TheCheckerFindsEachKindOfBrokenReference PROPERTIES LABELS unit TIMEOUT 60)
  add_test(NAME Tiers.EveryTestHasOneTierAndIsListedOnce
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_tiers.py ${PROJECT_BINARY_DIR})
  set_tests_properties(Tiers.EveryTestHasOneTierAndIsListedOnce PROPERTIES LABELS unit TIMEOUT 60)
endfunction()
