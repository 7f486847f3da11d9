%% The proxy/server ordering bug (seed 003, Fig. 5.2): the client sends
%% {S, {self(), 40}} through the proxy and 2 straight to the server. The
%% server expects {C, N} first; when 2 overtakes the proxied message, it
%% takes 2 as the catch-all and stops, and the client waits forever.
-module(proxy_server).
-export([main/0, server/0, proxy/0]).

main() ->
    S = spawn(?MODULE, server, []),
    P = spawn(?MODULE, proxy, []),
    client(P, S).

server() ->
    receive
        {C, N} ->
            receive
                M -> C ! N + M, server()
            end;
        _E ->
            error
    end.

proxy() ->
    receive
        {T, M} -> T ! M, proxy()
    end.

client(P, S) ->
    P ! {S, {self(), 40}},
    S ! 2,
    receive
        N -> io:format("~p~n", [N]), N
    end.
