# Sources of the TVMScript printer (paths relative to src/script).
set(PIPESPLIT_PRINTER_SOURCES
  printer_call.cc
  printer_doc.cc
  printer_expr.cc
  printer_fragment.cc
  printer_function.cc
  printer_module.cc
  printer_names.cc
  printer_prim.cc
  printer_sinfo.cc
  printer_tir.cc)
