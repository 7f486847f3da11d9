%% Two clients each make sure a logger is running: look it up by name,
%% start and register it when missing. Both may find it missing, and the
%% second register fails (badarg) in either client. The crash reason holds
%% the pid of the logger the loser started, whose number depends on the
%% order of the spawns: failures are grouped by the symbolic name in its
%% place, so each client's crash is one failure, not one per pid.
%% explore: fails 2
%% interleavings: 12
-module(register_once).
-export([main/0]).

main() ->
    Me = self(),
    [spawn(fun() -> Me ! {ok, log(N)} end) || N <- [1, 2]],
    R = [receive {ok, X} -> X end || _ <- [1, 2]],
    io:format("~p~n", [lists:sort(R)]).

log(N) ->
    Pid = case whereis(logger_srv) of
              undefined ->
                  P = spawn(fun loop/0),
                  register(logger_srv, P),
                  P;
              P -> P
          end,
    Pid ! {log, N, self()},
    receive logged -> N end.

loop() ->
    receive {log, _, From} -> From ! logged, loop() end.
