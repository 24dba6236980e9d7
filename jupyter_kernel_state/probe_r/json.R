# JSON for the R probe's replies, vectorised: jsonlite::toJSON takes ~0.5 ms a variable,
# too slow for a snapshot of thousands. Strings are escaped per JSON (control characters
# other than \n \r \t become spaces); NA, NaN and Inf are null; I() marks arrays that
# must stay arrays at length 1; a named list is an object, an unnamed one an array.

json_str <- function(s) {
  s <- enc2utf8(as.character(s))
  if (!length(s)) return(character(0))  # paste0 would make one "" of nothing
  na <- is.na(s)
  s <- gsub("\\", "\\\\", s, fixed = TRUE)
  s <- gsub("\"", "\\\"", s, fixed = TRUE)
  if (any(grepl("[\001-\037]", s, useBytes = TRUE), na.rm = TRUE)) {
    s <- gsub("\n", "\\n", s, fixed = TRUE)
    s <- gsub("\r", "\\r", s, fixed = TRUE)
    s <- gsub("\t", "\\t", s, fixed = TRUE)
    s <- gsub("[\001-\037]", " ", s, useBytes = TRUE)
  }
  out <- paste0("\"", s, "\"")
  out[na] <- "null"
  out
}

# Numbers as the shortest text that reads back the same (integers in full, never 1e+07).
json_num <- function(x) {
  x <- as.numeric(x)
  out <- sprintf("%.15g", x)
  inexact <- is.finite(x) & as.numeric(out) != x
  out[inexact] <- sprintf("%.17g", x[inexact])
  whole <- is.finite(x) & x == trunc(x) & abs(x) < 2^53
  out[whole] <- sprintf("%.0f", x[whole])
  out[!is.finite(x)] <- "null"
  out
}

json_bool <- function(x) {
  out <- ifelse(x, "true", "false")
  out[is.na(x)] <- "null"
  out
}

to_json <- function(x) {
  if (is.null(x)) return("null")
  if (is.list(x)) {
    parts <- vapply(x, to_json, "", USE.NAMES = FALSE)
    nm <- names(x)
    if (!is.null(nm) && !inherits(x, "AsIs")) {
      return(paste0("{", paste0(json_str(nm), ":", parts, collapse = ","), "}"))
    }
    return(paste0("[", paste(parts, collapse = ","), "]"))
  }
  v <- if (is.character(x) || is.factor(x)) json_str(as.character(x))
       else if (is.logical(x)) json_bool(x)
       else if (is.numeric(x)) json_num(as.vector(x))
       else json_str(paste(class(x)[1L], "value"))
  if (length(v) == 1L && !inherits(x, "AsIs")) v else paste0("[", paste(v, collapse = ","), "]")
}

# The snapshot's variables, one column at a time.
variables_json <- function(vars) {
  if (!length(vars)) return("[]")
  always <- function(f) json_str(vapply(vars, `[[`, "", f))  # set for every entry
  text <- function(f) json_str(vapply(vars, function(v) {
    x <- v[[f]]
    if (is.null(x)) NA_character_ else as.character(x)
  }, ""))
  number <- function(f) json_num(vapply(vars, function(v) {
    x <- v[[f]]
    if (is.null(x)) NA_real_ else as.numeric(x)
  }, 0))
  changes <- vapply(vars, function(v) {
    x <- v$changes
    if (length(x)) paste0("[", paste(json_str(x), collapse = ","), "]") else "[]"
  }, "")
  shape <- vapply(vars, function(v) {
    x <- v$shape
    if (is.null(x)) "null" else paste0("[", paste(json_num(x), collapse = ","), "]")
  }, "")
  rows <- paste0(
    "{\"name\":", always("name"), ",\"type\":", always("type"),
    ",\"qualname\":", always("qualname"), ",\"kind\":", always("kind"), ",\"size\":", number("size"), ",\"shape\":", shape,
    ",\"dtype\":", text("dtype"), ",\"nbytes\":", number("nbytes"), ",\"memory\":", number("nbytes"),
    ",\"preview\":", text("preview"),
    ",\"truncated\":", json_bool(vapply(vars, `[[`, TRUE, "truncated")),
    ",\"error\":", text("error"), ",\"change\":", always("change"),
    ",\"changed_at\":", number("changed_at"), ",\"changes\":", changes, "}")
  paste0("[", paste(rows, collapse = ","), "]")
}
