# Sources of the TVMScript parser (lexer, syntax tree, lowering to IR).
set(PIPESPLIT_PARSER_SOURCES
  lexer.cc
  parser_binding.cc
  parser_blocks.cc
  parser_call.cc
  parser_eval.cc
  parser_function.cc
  parser_intrinsics.cc
  parser_literals.cc
  parser_module.cc
  parser_operators.cc
  parser_sinfo.cc
  parser_syntax_expr.cc
  parser_syntax_stmt.cc
  parser_tir.cc
  parser_tir_expr.cc
  parser_value.cc)
