"""A FastMCP server with the tasks extension (``fastmcp-tasks``, ``io.modelcontextprotocol/tasks``),
for tests/interop/test_fastmcp_tasks.py.

    python fastmcp_tasks_server.py stdio
    python fastmcp_tasks_server.py http PORT

Its tasks run in memory (``memory://``), in this one process. Tools:

    crunch(n, seconds)   may run as a task (``optional``): n * 2 after ``seconds``; asks to be polled
                         once a second (the others: every 0.1 s)
    must_task(n)         runs only as a task (``required``)
    confirm(item)        a task that asks, mid-run, for a yes or no (elicitation) and reports it
    explode(message)     a task whose tool raises: the task completes with ``isError``
    forever()            a task that runs until cancelled; ``cancelled_count`` says how many were
    cancelled_count()    how many ``forever`` calls saw their cancellation (not a task)
    started_count()      how many ``forever`` calls have started running (not a task)
    plain(text)          never a task
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

import mcp_types
from fastmcp import Context, FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

app = FastMCP("fastmcp-tasks-test")
app.add_extension(TasksExtension(url="memory://"))

CANCELLED: list[str] = []
STARTED: list[str] = []
#: Tasks are polled at the pace the server asks: quick here, so the tests are; ``crunch`` asks for a second.
QUICK = TaskConfig(mode="optional", poll_interval=timedelta(milliseconds=100))


@app.tool(task=TaskConfig(mode="optional", poll_interval=timedelta(seconds=1)))
async def crunch(n: int, seconds: float = 0.5) -> int:
    """Double n, slowly."""
    await asyncio.sleep(seconds)
    return n * 2


@app.tool(task=TaskConfig(mode="required", poll_interval=timedelta(milliseconds=100)))
async def must_task(n: int) -> str:
    """Only as a task."""
    await asyncio.sleep(0.2)
    return f"task {n}"


@app.tool(task=QUICK)
async def confirm(item: str, ctx: Context) -> str | mcp_types.InputRequiredResult:
    """Ask whether to go on with ``item`` (by the task's input requests), then say what was answered."""
    responses = ctx.input_responses
    if not responses:
        return mcp_types.InputRequiredResult(
            input_requests={
                "go": mcp_types.ElicitRequest(
                    params=mcp_types.ElicitRequestFormParams(
                        message=f"Go on with {item}?",
                        requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
                    )
                )
            },
            request_state=f"asked about {item}",
        )
    answer = responses["go"].model_dump(mode="json", exclude_none=True)
    return f"{item}: {answer.get('action')} {answer.get('content')} ({ctx.request_state})"


@app.tool(task=QUICK)
async def explode(message: str = "boom") -> str:
    """Fail inside the task."""
    raise ValueError(message)


@app.tool(task=QUICK)
async def forever() -> str:
    """Run until cancelled."""
    STARTED.append("forever")
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        CANCELLED.append("forever")
        raise
    return "never"


@app.tool()
async def cancelled_count() -> int:
    """How many ``forever`` tasks were cancelled."""
    return len(CANCELLED)


@app.tool()
async def started_count() -> int:
    """How many ``forever`` tasks have started running (a task cancelled before it ran never does)."""
    return len(STARTED)


@app.tool()
async def plain(text: str) -> str:
    """Not a task."""
    return text


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        app.run("stdio", show_banner=False)
    else:
        app.run("http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False, log_level="warning")
