"""``@kernel`` in Notebook Intelligence's chat: a chat participant that attaches the
kernel state, and the card of each ``@var:<name>`` in the message, then lets NBI's own
assistant answer.

NBI 6 gives extensions no mention hook in its chat panel (its ``@`` menu lists files; its
mention providers serve Chatbook cells, whose code runs in a kernel of their own that this
server cannot see); a message that starts with ``@<participant>`` goes to that participant.
So ``@kernel what is the mean price in @var:sales?`` reaches this one: the attachments,
read through our MCP endpoint with our credential (``endpoint``), are appended to the
message the assistant gets, and shown to the user as "what the assistant gets". A variable
the user hid from assistants is refused by the tool and gets one line, nothing of its value.
"""

from __future__ import annotations

import json
from typing import Any

from notebook_intelligence.api import (  # type: ignore[import-not-found,unused-ignore]
    ChatParticipant,
    MarkdownData,
)

from . import cards
from .endpoint import Connection, Endpoint

PARTICIPANT_ID = "kernel"
# The refusal of our MCP tools for a variable the user hid (mcp_tools._visible).
HIDDEN_REFUSAL = "The user hid this variable from assistants"
# The service's NotFound for a name the kernel does not have.
MISSING = "Variable not found"
# Without an endpoint (fail closed: our MCP authentication was not attached, or the
# credential was refused); the server log says which.
UNAVAILABLE = ("@kernel — the kernel state is not available: jupyter_kernel_state's MCP "
               "tools are not open to Notebook Intelligence in this server (see its log)")


class KernelStateParticipant(ChatParticipant):  # type: ignore[misc]
    def __init__(self, extension: Any) -> None:
        super().__init__()
        self._extension = extension

    @property
    def id(self) -> str:
        return PARTICIPANT_ID

    @property
    def name(self) -> str:
        return "Kernel state"

    @property
    def description(self) -> str:
        return ("Attach the kernel state to your question; @var:<name> attaches a "
                "variable's card")

    async def handle_chat_request(self, request: Any, response: Any,
                                  options: dict[str, Any] | None = None) -> None:
        text = str(request.prompt or "")
        current_file = str(getattr(request.rule_context, "filename", "") or "")
        attached, summary = await attachments(self._extension.endpoint, text, current_file)
        response.stream(MarkdownData(summary, detail={"title": "What the assistant gets",
                                                      "content": attached}))
        message = {"role": "user", "content": f"{cards.mark_mentions(text)}\n\n{attached}"}
        if request.chat_history and request.chat_history[-1].get("role") == "user":
            request.chat_history[-1] = message
        else:
            request.chat_history.append(message)
        assistant = request.host.default_chat_participant
        await assistant.handle_chat_request(request, response, options or {})


async def attachments(endpoint: Endpoint | None, text: str,
                      current_file: str = "") -> tuple[str, str]:
    """The text attached to a ``@kernel`` message (the kernel block, then one card per
    ``@var:`` within the cards' budget, then what was cut or skipped) and a one-line
    summary for the user."""
    if endpoint is None:
        return cards.fence(UNAVAILABLE), "The kernel state is not available."
    try:
        async with endpoint.connected() as connection:
            return await _attachments(connection, cards.find_variables(text), current_file)
    except Exception as e:  # unreachable, refused, too slow: say so, attach nothing
        return (cards.fence(f"@kernel — the kernel state could not be read "
                            f"({type(e).__name__})"), "The kernel state could not be read.")


async def _attachments(connection: Connection, names: list[str],
                       current_file: str) -> tuple[str, str]:
    kernel = await _kernel(connection, current_file)
    if kernel is None:
        typed = [f"{cards.VAR_PREFIX}{n}" for n in names] + [cards.KERNEL_COMMAND]
        return cards.fence(cards.no_kernel_text(typed)), "No kernel is running."
    if isinstance(kernel, str):
        return cards.kernel_error_block("the current kernel", kernel), "The kernel was not read."
    kid, label = kernel
    prompt = await connection.call("kernel_state_prompt", {"kernel_id": kid})
    parts = [cards.kernel_error_block(label, prompt.text) if prompt.is_error
             else cards.kernel_block(prompt.text, label)]
    read = names[: cards.MAX_VARIABLE_MENTIONS]
    built = cards.build_cards([await _lookup(connection, kid, n) for n in read], label)
    parts += built.blocks
    notes = [cards.cut_note(built)]
    if names[cards.MAX_VARIABLE_MENTIONS:]:
        notes.append(cards.skipped_note(names[cards.MAX_VARIABLE_MENTIONS:]))
    summary = "Attached the kernel state" + (
        f" and {len(built.blocks)} variable card{'s' if len(built.blocks) != 1 else ''}"
        if read else "") + " (data from the kernel, not instructions)."
    return "\n\n".join([*parts, *filter(None, notes)]), summary


async def _kernel(connection: Connection, current_file: str) -> tuple[str, str] | str | None:
    """(kernel id, label) of the current file's kernel, else of the kernel the user last
    ran a cell in (the tools' default); None without kernels; the tool's error text when
    the kernel cannot be read."""
    listed = await connection.call("list_kernels", {})
    if listed.is_error:
        return listed.text
    kernels = json.loads(listed.text).get("kernels", [])
    if not kernels:
        return None
    chosen = next((k["kernel_id"] for k in kernels
                   if current_file and k.get("path") == current_file), None)
    named = await connection.call("list_variables", {"kernel_id": chosen, "detail": "names",
                                                   "limit": 1})
    if named.is_error:
        return named.text
    answer = json.loads(named.text)
    kid = str(answer["kernel_id"])
    return kid, str(answer.get("kernel_path") or f"kernel {kid}")


async def _lookup(connection: Connection, kernel_id: str, name: str) -> cards.Lookup:
    reply = await connection.call("inspect_variable", {"name": name, "kernel_id": kernel_id,
                                                     "max_chars": 400})
    if not reply.is_error:
        return cards.Lookup(name, detail=json.loads(reply.text))
    if reply.text.startswith(HIDDEN_REFUSAL):
        return cards.Lookup(name, hidden=True)
    if reply.text.startswith(MISSING):
        return cards.Lookup(name, missing=True)
    return cards.Lookup(name, error=reply.text)
