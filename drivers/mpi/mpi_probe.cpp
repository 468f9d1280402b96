// `evbench info` for MPI: the library it was built with (MPI_Get_library_version may be called
// before MPI_Init).
#include "drivers/mpi/mpi_driver.hpp"

#include <mpi.h>

namespace evb {

DriverProbe MpiDriver::probe() const {
    DriverProbe p;
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string library(text, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n")); // "Open MPI v4.1.4"
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    const std::string standard = std::to_string(major) + "." + std::to_string(minor);
    p.lines.push_back("mpi: " + library + " (MPI " + standard + "); run under mpirun or srun --mpi=pmix");
    p.json = {{"library", library}, {"standard", standard}};
    return p;
}

} // namespace evb
