# The Python module (python/): -DPARSGD_PYTHON=auto|on|off.
#   auto: built when CMake finds a Python 3 interpreter with its development files (Debian's
#         python3-dev) and pybind11's CMake config (pybind11-dev); off otherwise, with a note;
#   on:   the same, and a failure stops the configuration;
#   off:  not built (the sanitizer and fuzz presets: the extension is loaded by an uninstrumented
#         interpreter).
# The interpreter is Debian's /usr/bin/python3 unless -DPython3_EXECUTABLE says otherwise: numpy,
# scipy and scikit-learn come from Debian's packages for it (another python3 first on PATH may
# lack them).
# Results: PARSGD_PYTHON_ACTIVE, and when active the target _parsgd (python/CMakeLists.txt).
set(PARSGD_PYTHON "auto" CACHE STRING "The Python module: auto, on or off")
set_property(CACHE PARSGD_PYTHON PROPERTY STRINGS auto on off)
if(NOT PARSGD_PYTHON MATCHES "^(auto|on|off)$")
  message(FATAL_ERROR "PARSGD_PYTHON must be auto, on or off, not '${PARSGD_PYTHON}'")
endif()
set(PARSGD_PYTHON_ACTIVE OFF)
if(NOT PARSGD_PYTHON STREQUAL "off")
  # A wheel build (pip, scikit-build-core) names the interpreter it builds for as Python_EXECUTABLE.
  if(NOT DEFINED Python3_EXECUTABLE AND DEFINED Python_EXECUTABLE)
    set(Python3_EXECUTABLE ${Python_EXECUTABLE})
  endif()
  if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
  endif()
  # Development.Module: an extension needs the headers, not libpython (that is for embedding).
  if(PARSGD_PYTHON STREQUAL "on")
    find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
    find_package(pybind11 REQUIRED CONFIG)
  else()
    find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
    if(Python3_FOUND)
      find_package(pybind11 QUIET CONFIG)
    endif()
  endif()
  if(Python3_FOUND AND pybind11_FOUND)
    set(PARSGD_PYTHON_ACTIVE ON)
  elseif(PARSGD_PYTHON STREQUAL "auto")
    message(STATUS "parsgd: the Python module needs python3-dev and pybind11-dev "
                   "(scripts/install-deps.sh)")
  endif()
endif()
if(PARSGD_PYTHON_ACTIVE)
  # The extension is a shared object that links the static library: its code must be position
  # independent. -fno-semantic-interposition lets the compiler keep calling (and inlining) the
  # library's own functions directly, as in the executables, instead of through the PLT.
  set_target_properties(parsgd parsgd_io PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(parsgd PRIVATE -fno-semantic-interposition)
  target_compile_options(parsgd_io PRIVATE -fno-semantic-interposition)
  message(STATUS "parsgd: Python module ON (${Python3_EXECUTABLE}, pybind11 ${pybind11_VERSION})")
else()
  message(STATUS "parsgd: Python module OFF (PARSGD_PYTHON=${PARSGD_PYTHON})")
endif()
