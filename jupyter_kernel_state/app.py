"""The jupyter_server extension: configurable limits, services built once, handlers."""

from __future__ import annotations

from pathlib import Path

from jupyter_core.paths import jupyter_data_dir
from jupyter_server.extension.application import ExtensionApp
from traitlets import Float, Int, Unicode, default

from . import mcp_tools
from .files.limits import FileLimits
from .files.tables import FileTables
from .probe import protocol
from .rest.handlers import build_handlers
from .service import KernelStateService, Limits
from .service.annotations import AnnotationStore
from .service.history import HistoryLimits
from .service.images import ImageLimits
from .service.service import KERNEL_ACTIONS_SCHEMA

# Every default lives in Limits (and the image and history limits); the traits read them.
_D = Limits()


class KernelStateApp(ExtensionApp):
    """jupyter_kernel_state: variables, images and recent steps of running kernels."""

    name = "jupyter_kernel_state"

    probe_timeout = Float(
        _D.probe_timeout, min=0.1, config=True,
        help="Seconds the server waits for a probe reply. Never interrupts the user's cell.",
    )
    probe_budget_ms = Int(
        _D.probe_budget_ms, min=1, config=True,
        help="Total milliseconds the probe may spend in user code (reprs) per request; "
        "values past it are listed as not inspected.",
    )
    time_guard_ms = Int(
        _D.time_guard_ms, min=1, config=True,
        help="Per-value time guard inside the probe, in milliseconds."
    )
    preview_chars = Int(
        _D.preview_chars, min=1, config=True,
        help="Characters of a variable's preview in lists.")
    detail_chars = Int(
        _D.detail_chars, min=1, config=True,
        help="Default characters of a variable's repr.")
    max_detail_chars = Int(
        _D.max_detail_chars, min=1, config=True,
        help="Largest repr a caller may ask for.")
    page_size = Int(
        _D.page_size, min=1, max=protocol.MAX_LIMIT, config=True,
        help="Variables per response when no limit is given.")
    max_page_size = Int(
        _D.max_page_size, min=1, max=protocol.MAX_LIMIT, config=True,
        help=f"Largest page a caller may ask for (at most {protocol.MAX_LIMIT:,}: the "
             "probe's own bound).")
    snapshot_cache_size = Int(
        _D.snapshot_cache_size, min=1, config=True,
        help="Snapshots kept per kernel (by generation and options)."
    )
    detail_cache_size = Int(
        _D.detail_cache_size, min=1, config=True,
        help="Variable details kept per kernel.")
    presented_fragments = Int(
        _D.presented_fragments, min=1, config=True,
        help="Presented variables (JSON) kept server-wide to serve unchanged ones again; "
             "past it the cache starts over.")
    rows_max_rows = Int(
        _D.rows_max_rows, min=1, max=protocol.MAX_ROWS, config=True,
        help="Most rows in one data explorer window (variables/{name}/rows).")
    rows_max_columns = Int(
        _D.rows_max_columns, min=1, max=protocol.MAX_COLUMNS, config=True,
        help="Most columns in one data explorer window.")
    rows_cell_chars = Int(
        _D.rows_cell_chars, min=protocol.MIN_CELL_CHARS, max=protocol.MAX_CELL_CHARS,
        config=True,
        help="Characters of one cell's text in a window; longer cells are cut and counted.")
    rows_read_ms = Int(
        _D.rows_read_ms, min=1, max=protocol.MAX_MS, config=True,
        help="Time guard (ms) for each read of a table while building a window.")
    rows_sort_ms = Int(
        _D.rows_sort_ms, min=1, max=protocol.MAX_MS, config=True,
        help="Time guard (ms) for sorting a table in the kernel; keep it under probe_timeout.")
    rows_cache_size = Int(
        _D.rows_cache_size, min=1, config=True,
        help="Data explorer windows kept per kernel.")
    rows_count_ms = Int(
        _D.rows_count_ms, min=1, max=protocol.MAX_MS, config=True,
        help="Time guard (ms) for the row count a window of an engine's table (a DuckDB "
        "relation, a polars LazyFrame, Spark, Ibis, dask) asks its engine for; past it the "
        "count is cancelled in the engine and the window says not counted (total_rows null).")
    engine_count_ms = Int(
        _D.engine_count_ms, min=1, max=protocol.MAX_MS, config=True,
        help="Time guard (ms) for counting an engine table's rows (variables/{name}/count, "
        "MCP's count_rows); past it the count is cancelled in the engine (422). Like every "
        "guard it stops at 80 % of probe_timeout: raise probe_timeout with it for longer "
        "counts.")
    max_request_budget_ms = Int(
        _D.max_request_budget_ms, min=1, max=protocol.MAX_MS, config=True,
        help="The most time (ms) one request on a table may ask for itself with budget_ms "
        "(variables/{name}/rows, count, profile, code; MCP's get_rows, describe_table, "
        "count_rows): every guard of that request is raised to it and its reply awaited "
        "that long, whatever probe_timeout; more is a 400. A sort of a billion rows in an "
        "engine takes 20–50 s on 2 cores.")
    profile_max_columns = Int(
        _D.profile_max_columns, min=1, max=protocol.MAX_COLUMNS, config=True,
        help="Most columns in one profile (variables/{name}/profile); MCP's describe_table "
        "asks at most 50.")
    profile_column_ms = Int(
        _D.profile_column_ms, min=1, max=protocol.MAX_MS, config=True,
        help="Time guard (ms) for one column's statistics in the kernel; a column past it "
        "is listed with an error, and the columns the request's time does not reach are "
        "counted in columns_cut.")
    profile_sample_rows = Int(
        _D.profile_sample_rows, min=protocol.MIN_SAMPLE_ROWS, max=protocol.MAX_SAMPLE_ROWS,
        config=True,
        help="Rows past which a profile's statistics come from a fixed-seed sample of this "
        "many rows (count and null_count stay exact; the columns say approximate).")
    profile_cache_size = Int(
        _D.profile_cache_size, min=1, config=True,
        help="Profiles kept per kernel.")
    max_kept = Int(
        _D.max_kept, min=0, max=protocol.MAX_KEPT, config=True,
        help="Versions of tables kept in a kernel at most, every name's (Keep this version, "
        "POST variables/{name}/kept), to compare a table with itself as of an earlier "
        "execution; a version past it is refused (409) unless the oldest is dropped "
        "(evict). 0 turns keeping off.")
    max_kept_bytes = Int(
        _D.max_kept_bytes, min=0, max=protocol.MAX_KEPT_BYTES, config=True,
        help="Bytes the kept versions of a kernel hold at most (a copy is measured as the "
        "list's memory column measures its table); a copy that would pass it is refused "
        "before it is made: 422 when it passes it alone, else 409 unless the oldest are "
        "dropped (evict).")
    max_images = Int(
        _D.images.max_images, min=1, config=True,
        help="The latest images kept per kernel (besides the first keep_first_images); "
        "past it the oldest of them are dropped and counted.")
    keep_first_images = Int(
        _D.images.keep_first, min=0, config=True,
        help="The first images of each kernel kept whatever comes after them, so a loop "
        "that floods max_images drops the images in between, not the session's first "
        "plots (0: keep only the latest).")
    image_code_chars = Int(
        _D.images.code_chars, min=0, max=100_000, config=True,
        help="Characters of the displaying cell's code kept with each image (longer code "
        "is cut and marked code_truncated).")
    max_image_bytes = Int(
        _D.images.max_image_bytes, min=1, config=True,
        help="Largest image kept; larger ones are rejected."
    )
    max_image_total_bytes = Int(
        _D.images.max_total_bytes, min=1, config=True,
        help="Bytes of images kept per kernel."
    )
    max_iopub_message_bytes = Int(
        _D.max_iopub_message_bytes, min=0, config=True,
        help="IOPub messages whose content (plus buffers) is larger than this many bytes are "
        "not decoded: images in them are counted as rejected and the history notes an output "
        "not kept. 0 derives it from the other limits: max_image_bytes as base64 (4/3) plus "
        "1 MiB, or history_output_chars × 4 plus 1 MiB if larger.",
    )
    gateway_release_interval = Float(
        _D.gateway_release_interval, min=0.0, config=True,
        help="Seconds between checks of the gateway kernels this server follows: our "
        "websocket to one that no other client is connected to is closed (a gateway's "
        "culler skips connected kernels), and reopened when a client connects again or a "
        "request comes. 0 keeps it open (such kernels are then never culled for idleness).",
    )
    history_entries = Int(
        _D.history.max_entries, min=1, config=True,
        help="Executions kept in each kernel's history.")
    history_output_chars = Int(
        _D.history.max_output_chars, min=1, config=True,
        help="Characters of output kept per execution in the history."
    )
    history_code_chars = Int(
        _D.history.max_code_chars, min=1, config=True,
        help="Characters of code kept per execution in the history."
    )

    files_timeout = Float(
        _D.files.timeout, min=0.1, config=True,
        help="Seconds the server waits for the file reader (a DuckDB worker process) to "
        "answer a files/… request; past it the worker is stopped and started again.",
    )
    files_max_bytes = Int(
        _D.files.max_bytes, min=1, config=True,
        help="Files larger than this many bytes are not read (413).",
    )
    files_excel_max_bytes = Int(
        _D.files.excel_max_bytes, min=1, config=True,
        help="Excel workbooks are read whole (openpyxl): at most this many bytes.",
    )
    files_excel_max_rows = Int(
        _D.files.excel_max_rows, min=1, config=True,
        help="Excel workbooks: at most this many rows of the first sheet.",
    )
    files_memory_mb = Int(
        _D.files.memory_mb, min=16, config=True,
        help="DuckDB's memory limit (MB) in the file reader's worker process.",
    )
    files_threads = Int(
        _D.files.threads, min=1, config=True,
        help="DuckDB's threads in the file reader's worker process.",
    )
    files_max_reply_bytes = Int(
        _D.files.max_reply_bytes, min=65_536, config=True,
        help="The largest answer of the file reader's worker (bytes).",
    )

    annotations_path = Unicode(
        config=True,
        help="JSON file where variable annotations are kept across server restarts "
        "(empty: keep them in memory only).",
    )

    @default("annotations_path")
    def _default_annotations_path(self) -> str:
        return str(Path(jupyter_data_dir()) / "jupyter_kernel_state" / "annotations.json")

    def limits(self) -> Limits:
        return Limits(
            probe_timeout=self.probe_timeout,
            time_guard_ms=self.time_guard_ms,
            probe_budget_ms=self.probe_budget_ms,
            preview_chars=self.preview_chars,
            detail_chars=self.detail_chars,
            max_detail_chars=self.max_detail_chars,
            page_size=self.page_size,
            max_page_size=self.max_page_size,
            snapshot_cache_size=self.snapshot_cache_size,
            detail_cache_size=self.detail_cache_size,
            presented_fragments=self.presented_fragments,
            rows_max_rows=self.rows_max_rows,
            rows_max_columns=self.rows_max_columns,
            rows_cell_chars=self.rows_cell_chars,
            rows_read_ms=self.rows_read_ms,
            rows_sort_ms=self.rows_sort_ms,
            rows_cache_size=self.rows_cache_size,
            rows_count_ms=self.rows_count_ms,
            engine_count_ms=self.engine_count_ms,
            max_request_budget_ms=self.max_request_budget_ms,
            profile_max_columns=self.profile_max_columns,
            profile_column_ms=self.profile_column_ms,
            profile_sample_rows=self.profile_sample_rows,
            profile_cache_size=self.profile_cache_size,
            max_kept=self.max_kept,
            max_kept_bytes=self.max_kept_bytes,
            images=ImageLimits(
                max_images=self.max_images,
                max_image_bytes=self.max_image_bytes,
                max_total_bytes=self.max_image_total_bytes,
                keep_first=self.keep_first_images,
                code_chars=self.image_code_chars,
            ),
            history=HistoryLimits(
                max_entries=self.history_entries,
                max_output_chars=self.history_output_chars,
                max_code_chars=self.history_code_chars,
            ),
            max_iopub_message_bytes=self.max_iopub_message_bytes,
            gateway_release_interval=self.gateway_release_interval,
            files=FileLimits(
                timeout=self.files_timeout,
                max_bytes=self.files_max_bytes,
                excel_max_bytes=self.files_excel_max_bytes,
                excel_max_rows=self.files_excel_max_rows,
                memory_mb=self.files_memory_mb,
                threads=self.files_threads,
                max_reply_bytes=self.files_max_reply_bytes,
            ),
        )

    def initialize_settings(self) -> None:
        serverapp = self.serverapp
        assert serverapp is not None and serverapp.event_logger is not None
        store = AnnotationStore(
            Path(self.annotations_path) if self.annotations_path else None, self.log
        )
        self.service = KernelStateService(
            serverapp.kernel_manager,
            self.limits(),
            self.log,
            annotations=store,
            session_manager=serverapp.session_manager,
        )
        self.service.files = FileTables(serverapp.contents_manager, self.service.limits,
                                        self.log)
        self.settings["jupyter_kernel_state"] = self.service
        mcp_tools.bind(self.service, self)
        serverapp.event_logger.add_listener(
            schema_id=KERNEL_ACTIONS_SCHEMA, listener=self.service.on_kernel_action
        )

    def initialize_handlers(self) -> None:
        self.handlers.extend(build_handlers())

    async def stop_extension(self) -> None:
        service = getattr(self, "service", None)
        if service is not None:
            mcp_tools.bind(None)
            await service.stop()
