# Sanitizer builds used by the test command's fast subset (see tests/sanitize/).
# Note [Sanitizer build flags]: -O1 with line tables only (-g1), as the sanitizers' own docs
# suggest: reports keep file:line, and the instrumented compile takes about half as long as
# RelWithDebInfo's -O2 -g (42 s -> 23 s for events.cpp on a 2-core machine) — the test command
# builds the engine twice more for these subsets.
if(NOT NETSMITH_SANITIZE STREQUAL "")
  add_compile_options(-O1 -g1)
endif()
if(NETSMITH_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "netsmith: AddressSanitizer + UndefinedBehaviorSanitizer build")
elseif(NETSMITH_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  message(STATUS "netsmith: ThreadSanitizer build")
elseif(NOT NETSMITH_SANITIZE STREQUAL "")
  message(FATAL_ERROR "NETSMITH_SANITIZE must be '', 'address' or 'thread', got '${NETSMITH_SANITIZE}'")
endif()
