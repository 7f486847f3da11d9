%% Benchmark: N gen_server:call/2 round trips to a counter server (OTP's
%% call protocol: a monitor with an alias, {'$gen_call', From, Req}, the
%% reply through the alias), then gen_server:stop/1.
-module(gen_server_calls).
-behaviour(gen_server).
-export([main/0, main/1, init/1, handle_call/3, handle_cast/2]).

main() -> main(1000000).

main(N) ->
    {ok, S} = gen_server:start_link(?MODULE, 0, []),
    Last = loop(S, N, 0),
    ok = gen_server:stop(S),
    io:format("~p calls, last reply ~p~n", [N, Last]).

loop(_S, 0, Last) -> Last;
loop(S, N, _) -> loop(S, N - 1, gen_server:call(S, incr)).

init(N) -> {ok, N}.

handle_call(incr, _From, N) -> {reply, N + 1, N + 1}.

handle_cast(_, N) -> {noreply, N}.
