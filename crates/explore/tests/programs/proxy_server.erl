%% fixtures/papers/proxy_server.erl, but the client stops the proxy and
%% the server with shutdown (kill would be a crash of each).
%% The proxy/server ordering bug of seed 003 (the thesis, Fig. 5.2 and
%% Examples 5.1-5.13), in our own words. The client sends {S, {self(), 40}}
%% to the proxy, which forwards {C, 40} to the server, and then sends 2
%% straight to the server. The server wants {C, N} first and then M, and
%% answers N + M.
%%   (a) the proxy forwards {C, 40} before 2 arrives: the server answers 42,
%%       the client prints it and stops the proxy and the server;
%%   (b) 2 reaches the server first (FIFO says nothing across the two paths):
%%       the server's catch-all clause takes it and the server gives up; the
%%       forwarded {C, 40} is never taken and the client (main) and the proxy
%%       wait forever -- a deadlock, exit status 5, both listed on stderr.
%% explore: fails 1
%% interleavings: 2
-module(proxy_server).
-export([main/0]).

main() ->
    S = spawn(fun server/0),
    P = spawn(fun proxy/0),
    client(P, S).

server() ->
    receive
        {C, N} ->
            receive M -> C ! N + M, server() end;
        E ->
            io:format("server: unexpected message ~p, giving up~n", [E]),
            error
    end.

proxy() ->
    receive {T, M} -> T ! M, proxy() end.

client(P, S) ->
    P ! {S, {self(), 40}},
    S ! 2,
    receive
        N ->
            io:format("client got ~p~n", [N]),
            exit(P, shutdown),
            exit(S, shutdown),
            N
    end.
