%% A server answering two clients; version 2 tags replies with v2.
-module(reply_v2).
-export([main/0]).

main() ->
    Server = spawn(fun server/0),
    Self = self(),
    [spawn(fun() -> Server ! {req, self(), N}, receive R -> Self ! {done, R} end end) || N <- [1, 2]],
    [receive {done, _} -> ok end || _ <- [1, 2]],
    Server ! stop.

server() ->
    receive
        {req, From, N} -> From ! {reply, make_ref(), N * N, v2}, server();
        stop -> ok
    end.
