%% The same behaviour under every schedule, but raw pids that depend on it:
%% the entry process starts three workers, working a while between starts;
%% each worker spawns a child at once and exchanges a message with it.
%% Whether a worker spawns its child before the entry process starts the
%% next worker depends on where the entry process is preempted, and so does
%% which raw pid each process gets. Each receive has one message to take, so
%% every run makes the same choices. Payloads carry pids and references,
%% which diff compares by the process they name.
-module(spawn_tree).
-export([main/0]).

main() ->
    start(3).

start(0) -> ok;
start(N) ->
    spawn(fun() -> worker(N) end),
    busy(2000),
    start(N - 1).

worker(N) ->
    Me = self(),
    Child = spawn(fun() -> child() end),
    Child ! {Me, make_ref(), N},
    receive
        {Child, _Ref, Me, V} -> V
    end.

child() ->
    receive
        {From, Ref, N} -> From ! {self(), Ref, From, N * 10}
    end.

busy(0) -> ok;
busy(K) -> busy(K - 1).
