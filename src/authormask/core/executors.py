"""Where independent pieces of work run: in this process (``local``) or on a Dask cluster
(``dask``: a ``distributed.LocalCluster`` of single-threaded worker processes, or an existing
cluster through its scheduler's address).

An engine runs ``fn(shared, item)`` for every item and yields ``(index, result)`` as results
arrive. ``shared`` is what every task needs (a mechanism's recipe, a study): on Dask it is sent
to each worker once, from worker to worker, never with each task. ``fn`` must be a module-level
function (workers import it by name) and must depend on its arguments only, so that a task that
is retried (its worker died) gives the same result and the result of a run never depends on the
engine, the number of workers or the order in which tasks finish.

Heavy objects a task builds from ``shared`` (embeddings, models, search indexes) are kept per
process with :func:`process_memo`: a worker loads them once, on its first task.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from authormask._process import process_memo
from authormask.exceptions import InputError, InvalidParameterError

__all__ = [
    "ENGINES",
    "Engine",
    "Executor",
    "check_engine",
    "open_executor",
    "process_memo",
]

logger = logging.getLogger(__name__)

ENGINES = ("local", "dask")
T = TypeVar("T")


@dataclass(frozen=True)
class Engine:
    """Where a release (or an evaluation sweep) runs.

    ``Engine()`` is the local, in-process engine. ``Engine("dask", workers=N)`` starts a
    ``distributed.LocalCluster`` of N single-threaded worker processes for the run;
    ``Engine("dask", scheduler="tcp://host:8786")`` uses an existing cluster. ``window`` is the
    number of tasks kept in flight per worker thread (the client holds at most that many
    partitions' inputs and outputs).

    Attributes
    ----------
    kind
        ``"local"`` (in-process) or ``"dask"``.
    workers
        The dask engine's number of local worker processes (a local cluster), or None.
    scheduler
        The address of an existing Dask scheduler, or None.
    window
        The tasks kept in flight per worker thread, >= 1.
    """

    kind: str = "local"
    workers: int | None = None
    scheduler: str | None = None
    window: int = 2

    def __post_init__(self) -> None:
        if self.kind not in ENGINES:
            raise InvalidParameterError(
                f"engine must be one of {', '.join(ENGINES)}, got {self.kind!r}"
            )
        if self.kind == "local" and (self.workers is not None or self.scheduler is not None):
            raise InvalidParameterError("workers and scheduler apply to the dask engine only")
        if self.workers is not None and self.scheduler is not None:
            raise InvalidParameterError(
                "give either workers (a local cluster) or scheduler (an existing cluster)"
            )
        if self.workers is not None and (
            isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 1
        ):
            raise InvalidParameterError(f"workers must be an integer >= 1, got {self.workers!r}")
        if self.scheduler is not None and not (
            isinstance(self.scheduler, str) and self.scheduler.strip()
        ):
            raise InvalidParameterError(f"scheduler must be an address, got {self.scheduler!r}")
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 1:
            raise InvalidParameterError(f"window must be an integer >= 1, got {self.window!r}")

    def describe(self) -> str:
        """The engine in words, as the command line logs it.

        Returns
        -------
        str
            Such as ``local (in-process)`` or ``dask (local cluster, 2 single-threaded workers)``.
        """
        if self.kind == "local":
            return "local (in-process)"
        if self.scheduler is not None:
            return f"dask (cluster at {self.scheduler})"
        n = self.workers or 1
        return f"dask (local cluster, {n} single-threaded worker{'s' if n != 1 else ''})"


def check_engine(
    engine: str | Engine | None = None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
) -> Engine:
    """An :class:`Engine` from a name and its options (``None``: local).

    Parameters
    ----------
    engine
        ``"local"``, ``"dask"``, an Engine (returned as it is), or None (local, unless
        ``workers`` or ``scheduler`` is given).
    workers
        The dask engine's number of local workers.
    scheduler
        The address of an existing Dask scheduler.

    Returns
    -------
    Engine
        The engine.

    Raises
    ------
    InvalidParameterError
        If ``engine`` is of another type, or options are given beside an Engine.
    """
    if isinstance(engine, Engine):
        if workers is not None or scheduler is not None:
            raise InvalidParameterError("give workers and scheduler inside the Engine")
        return engine
    if engine is None:
        engine = "dask" if workers is not None or scheduler is not None else "local"
    if not isinstance(engine, str):
        raise InvalidParameterError(f"engine must be 'local', 'dask' or an Engine, got {engine!r}")
    return Engine(engine, workers=workers, scheduler=scheduler)


# --- per-process state ----------------------------------------------------------------------


def _on_worker(backend: str) -> None:
    """A Dask worker runs one task per thread: each task searches with one thread, with the
    screen the client searches with."""
    from authormask.embeddings.neighbours import set_search_backend, set_search_threads

    set_search_threads(1)
    set_search_backend(backend)


def _task(fn: Callable[[Any, Any], Any], shared: Any, item: Any, backend: str) -> Any:
    _on_worker(backend)
    return fn(shared, item)


# --- executors ------------------------------------------------------------------------------


class Executor(Protocol):
    engine: Engine

    def map(
        self, fn: Callable[[Any, Any], T], items: Iterable[Any], *, shared: Any = None
    ) -> Iterator[tuple[int, T]]:
        """``(index, fn(shared, item))`` for every item, in the order they finish.

        Parameters
        ----------
        fn
            The task: ``fn(shared, item)``.
        items
            The inputs, one task each.
        shared
            The object every task gets (sent once per worker).

        Returns
        -------
        Iterator[tuple[int, T]]
            The items' indexes and results.
        """
        ...

    @property
    def slots(self) -> int:
        """Tasks that run at once."""
        ...


class _LocalExecutor:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def slots(self) -> int:
        return 1

    def map(
        self, fn: Callable[[Any, Any], T], items: Iterable[Any], *, shared: Any = None
    ) -> Iterator[tuple[int, T]]:
        for i, item in enumerate(items):
            yield i, fn(shared, item)


class _DaskExecutor:
    def __init__(self, engine: Engine, client: Any) -> None:
        self.engine = engine
        self.client = client

    @property
    def slots(self) -> int:
        try:
            threads = sum(self.client.nthreads().values())
        except Exception:  # pragma: no cover - a scheduler that went away
            threads = 0
        return max(1, int(threads))

    def map(
        self, fn: Callable[[Any, Any], T], items: Iterable[Any], *, shared: Any = None
    ) -> Iterator[tuple[int, T]]:
        from distributed import as_completed

        from authormask.embeddings.neighbours import search_backend

        backend = search_backend()  # the workers search with the client's screen
        shared_future = self.client.scatter(shared, broadcast=True, hash=False)
        window = self.slots * self.engine.window
        it = enumerate(items)
        pending: dict[Any, int] = {}

        def submit_next(queue: Any) -> bool:
            try:
                i, item = next(it)
            except StopIteration:
                return False
            future = self.client.submit(_task, fn, shared_future, item, backend, pure=False)
            pending[future] = i
            queue.add(future)
            return True

        queue = as_completed(loop=self.client.loop)
        try:
            for _ in range(window):
                if not submit_next(queue):
                    break
            for future in queue:
                i = pending.pop(future)
                try:
                    result = future.result()
                except InputError:
                    raise
                except Exception as exc:
                    raise _task_error(exc) from None
                finally:
                    future.release()
                submit_next(queue)
                yield i, result
        finally:
            for future in list(pending):
                future.cancel()
            pending.clear()
            with contextlib.suppress(Exception):
                shared_future.cancel()


#: the environment variable that sets the log level of Dask's workers when they start
_WORKER_LOG_ENV = "DASK_LOGGING__DISTRIBUTED"


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Dask's own logging (cluster start and stop, a task's error, which is raised here
    anyway) kept off stderr, unless this library logs at INFO (``authormask -v``)."""
    import distributed  # noqa: F401 - it installs its handlers on import

    level = logging.WARNING if logger.isEnabledFor(logging.INFO) else logging.CRITICAL
    names = ("distributed", "distributed.client", "distributed.gc", "tornado", "bokeh")
    saved: list[tuple[logging.Logger | logging.Handler, int]] = []
    for name in names:
        lg = logging.getLogger(name)
        saved.append((lg, lg.level))
        lg.setLevel(max(lg.level, level))
        for handler in lg.handlers:
            saved.append((handler, handler.level))
            handler.setLevel(max(handler.level, level))
    old_env = os.environ.get(_WORKER_LOG_ENV)
    os.environ[_WORKER_LOG_ENV] = logging.getLevelName(level).lower()
    try:
        yield
    finally:
        for obj, lvl in reversed(saved):
            obj.setLevel(lvl)
        if old_env is None:
            os.environ.pop(_WORKER_LOG_ENV, None)
        else:
            os.environ[_WORKER_LOG_ENV] = old_env


def _task_error(exc: Exception) -> Exception:
    """The error a lost task is reported as: one line for what the cluster did (a worker that
    died too often, a task the scheduler cancelled or forgot), the task's own error otherwise."""
    name = type(exc).__name__
    if name == "KilledWorker":
        return InputError(
            "a task was lost with its worker too many times (out of memory? see the workers' "
            f"logs): {exc}"
        )
    if isinstance(exc, concurrent.futures.CancelledError):
        return InputError(
            f"the Dask cluster cancelled a task ({exc}); run the same command again: the work "
            "already done is kept"
        )
    return exc


@contextlib.contextmanager
def open_executor(engine: Engine) -> Iterator[Executor]:
    """An executor for ``engine``; a local cluster it starts is closed on the way out.

    Parameters
    ----------
    engine
        The engine to run on.

    Yields
    ------
    Executor
        The executor, open until the context ends.

    Raises
    ------
    InputError
        If distributed is not installed or the scheduler cannot be reached.
    """
    if engine.kind == "local":
        yield _LocalExecutor(engine)
        return
    try:
        import distributed
    except ImportError:  # pragma: no cover - a dependency
        raise InputError(
            "the dask engine needs dask and distributed: pip install distributed"
        ) from None
    with contextlib.ExitStack() as stack:
        stack.enter_context(_quiet_dask())
        if engine.scheduler is not None:
            try:
                client = stack.enter_context(
                    distributed.Client(engine.scheduler, timeout="30s", set_as_default=False)
                )
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError(
                    f"cannot reach the Dask scheduler at {engine.scheduler}: {exc}"
                ) from None
        else:
            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=engine.workers or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # no dashboard; the scheduler's own HTTP endpoint on a free port
                    scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
                    silence_logs=False,
                )
            )
            client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        logger.info("dask engine: %s", engine.describe())
        yield _DaskExecutor(engine, client)
