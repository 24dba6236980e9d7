# The R probe's entry point: decode a request, check it (check.R), run its operation,
# publish the reply.

call <- function(encoded) {
  reply <- tryCatch(
    {
      request <- jsonlite::fromJSON(rawToChar(jsonlite::base64_dec(encoded)),
                                    simplifyVector = FALSE)
      dispatch(request)
    },
    interrupt = function(e) refusal("interrupted", "interrupted"),
    error = function(e) refusal("failed", paste("probe error:",
                                                cut_text(conditionMessage(e), 200L)$text))
  )
  if (is.null(reply$ok)) reply$ok <- TRUE
  reply$probe_id <- state$probe_id
  emit(reply)
  invisible(NULL)
}

emit <- function(reply) {
  text <- tryCatch({
    vars <- reply$variables
    if (is.null(vars)) to_json(reply) else {
      reply$variables <- NULL
      head <- to_json(reply)  # an object: its closing brace gives way to the variables
      paste0(substr(head, 1L, nchar(head) - 1L), ",\"variables\":", variables_json(vars), "}")
    }
  }, error = function(e) paste0("{\"ok\":false,\"failed\":true,",
                                "\"error\":\"reply could not be encoded: ",
                                gsub("[^A-Za-z0-9 ._:-]", " ", conditionMessage(e)),
                                "\",\"probe_id\":\"", state$probe_id, "\"}"))
  display <- getOption("jupyter.base_display_func")
  if (is.function(display)) {
    display(structure(list(text), names = REPLY_MIME), NULL)
  } else {  # another R kernel: our output, which only our request's parent sees
    cat(REPLY_MARKER, text, "\n", sep = "")
  }
}

# What this probe declares at `ping` (the server reads it once per probe and answers 501
# for what is not there): each operation it has -- exactly the names of HANDLERS -- with
# the optional fields of the protocol it applies. The fields left out it checks and then
# ignores: snapshot's delta, schema and framing (the server takes a page of decoded
# variables), detail's reveal and budget_ms, rows' cell_guard_ms, count_ms and budget_ms,
# code's guards, profile's time_guard_ms. max_rows is applied by check.R (limit's bound).
DECLARED <- list(
  ping = I(character(0)),
  snapshot = I(c("include", "offset", "limit", "sort", "since_ec", "filter", "changed_in",
                 "preview_chars", "time_guard_ms", "budget_ms")),
  detail = I(c("path", "max_chars", "since_ec", "preview_chars", "time_guard_ms")),
  rows = I(c("max_rows", "max_columns", "offset", "limit", "columns", "column_start",
             "column_stop", "view", "cell_chars", "time_guard_ms", "sort_ms")),
  delete = I(character(0)),
  timeline = I("limit"),
  code = I(c("view", "columns", "column_start", "column_stop", "syntax")),
  profile = I(c("max_columns", "columns", "column_start", "column_stop", "view", "top",
                "value_chars", "sample_rows", "filter_ms", "column_ms", "budget_ms"))
)

# The operations this probe has: op -> handler(fields, ec). An operation of the protocol
# without a handler here is answered `unsupported` (the server's 501).
HANDLERS <- list(
  ping = function(fields, ec) list(operations = DECLARED),
  snapshot = function(fields, ec) snapshot(fields, ec),
  detail = function(fields, ec) detail(fields, ec),
  rows = function(fields, ec) rows_op(fields, ec),
  delete = function(fields, ec) delete_op(fields, ec),
  timeline = function(fields, ec) timeline_op(fields, ec),
  code = function(fields, ec) code_op(fields, ec),
  profile = function(fields, ec) profile_op(fields, ec)
)

dispatch <- function(request) {
  checked <- tryCatch(check_request(request), ks_bad_request = function(e) e)
  if (inherits(checked, "ks_bad_request")) {
    return(refusal("bad_request", conditionMessage(checked)))
  }
  handler <- HANDLERS[[checked$op]]
  if (is.null(handler)) {
    return(refusal("unsupported", paste0("The R probe has no ", checked$op, " operation")))
  }
  handler(checked$fields, ec_of(request))
}

# The last user execution count, which the server sends beside the protocol's fields.
ec_of <- function(request) {
  value <- request$ec
  if (is.numeric(value) && length(value) == 1L && !is.na(value)) as.integer(value) else NULL
}

