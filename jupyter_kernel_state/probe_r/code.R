# The R probe's `code` operation: R code that, run where the variable lives, binds
# <name>_view to exactly the rows, order and columns of a view (the explorer's).
#
# syntax "dplyr" (the default for R data.frames): filter() with the filter's own code --
# the text the `rows` operation evaluates (filter.R) -- then arrange() with the sort keys
# (desc() for descending ones; stable, missing values last, as order(method = "radix")),
# then select() when the columns are not all of them in order. dplyr before 1.1 sorts
# text in the session's collation: where that is not C (the probe's order), the sort is
# written as slice(order(..., method = "radix")), the probe's own call.
# Other syntaxes (pandas, polars) do not fit an R value: bad_request.

code_op <- function(fields, ec) {
  name <- fields$name
  syntax <- if (is.null(fields$syntax)) "dplyr" else fields$syntax
  if (!exists(name, envir = globalenv(), inherits = FALSE) ||
      bindingIsActive(name, globalenv())) {
    return(refusal("not_found", paste0("Variable not found: ", name)))
  }
  x <- get(name, envir = globalenv(), inherits = FALSE)
  if (!is.data.frame(x)) {
    return(refusal("bad_request", paste0(name, " is a ", type_name(x), ": code is written ",
                                         "for data.frames (tibbles too)")))
  }
  if (syntax != "dplyr") {
    return(refusal("bad_request", paste0(syntax, " code does not fit ", name, " (",
                                         type_name(x), ", an R value): use syntax=dplyr")))
  }
  t <- table_of(x)
  made <- tryCatch(dplyr_code(name, t, fields), ks_bad_request = function(e) e)
  if (inherits(made, "ks_bad_request")) return(refusal("bad_request", conditionMessage(made)))
  list(code = list(syntax = syntax, code = made, name = name, view = view_json(fields$view)))
}

# The positions (from 1) of the columns shown: listed, or column_start to column_stop
# (null: to the last column).
code_columns <- function(fields, ncols) {
  listed <- fields$columns
  if (!is.null(listed)) return(as.integer(checked_positions(listed, ncols)) + 1L)
  start <- min(fields$column_start, ncols)
  stop <- if (is.null(fields$column_stop)) ncols else min(fields$column_stop, ncols)
  if (stop > start) seq.int(start + 1L, stop) else integer(0)
}

# Whether dplyr's arrange() orders text as order(method = "radix") does: R compares
# strings bytewise only in the C and POSIX collations (C.UTF-8 collates like any locale,
# with ICU where R has it); dplyr 1.1 arranges in C whatever the session's collation.
arrange_is_radix <- function() {
  if (Sys.getlocale("LC_COLLATE") %in% c("C", "POSIX")) return(TRUE)
  version <- tryCatch(utils::packageVersion("dplyr"), error = function(e) NULL)
  !is.null(version) && version >= "1.1.0"
}

dplyr_code <- function(name, t, fields) {
  plan <- view_plan(t, fields$view)
  shown <- code_columns(fields, length(t$names))
  steps <- character(0)
  if (!is.null(plan$filter)) steps <- c(steps, paste0("filter(", plan$filter, ")"))
  if (length(plan$keys)) {
    refs <- vapply(plan$keys, function(k) column_ref(t$names[k$at]), "")
    desc <- vapply(plan$keys, function(k) k$desc, TRUE)
    text <- vapply(plan$keys, function(k) is.character(t$column(k$at)), TRUE)
    steps <- c(steps, if (!any(text) || arrange_is_radix()) {
      paste0("arrange(", paste(ifelse(desc, paste0("desc(", refs, ")"), refs),
                               collapse = ", "), ")")
    } else {
      paste0("slice(order(", paste(refs, collapse = ", "),
             if (any(desc)) paste0(", decreasing = ", if (length(desc) == 1L) "TRUE"
                                   else paste0("c(", paste(desc, collapse = ", "), ")")),
             ", method = \"radix\"))")
    })
  }
  if (!identical(shown, seq_along(t$names))) {
    steps <- c(steps, paste0("select(", paste(vapply(t$names[shown], column_ref, ""),
                                              collapse = ", "), ")"))
  }
  target <- paste0(name, "_view")
  body <- if (length(steps)) {
    paste0(target, " <- ", name, " %>%\n", paste0("  ", steps, collapse = " %>%\n"))
  } else {
    paste0(target, " <- ", name)
  }
  paste0("library(dplyr)\n", body, "\n")
}
