// Owner of the shared precompiled header (cmake/Q2MLIRPch.h).
