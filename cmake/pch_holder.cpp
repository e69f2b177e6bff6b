// An empty unit: the target it belongs to exists only to build the precompiled headers that
// the dasim libraries and tests reuse (CMakeLists.txt, DASIM_PCH).
