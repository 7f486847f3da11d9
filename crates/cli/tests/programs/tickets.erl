-module(tickets).
-behaviour(gen_server).
-export([main/0, init/1, handle_call/3, handle_cast/2]).

%% One ticket left; two buyers each ask whether one is left, then buy it
%% (check, then act: both may see it left, and one buy is refused).
main() ->
    {ok, S} = gen_server:start_link(?MODULE, 1, []),
    Me = self(),
    [spawn(fun() -> buyer(S, Me, N) end) || N <- [ann, bob]],
    Got = [receive {done, N, R} -> {N, R} end || _ <- [1, 2]],
    io:format("~p~n", [lists:sort(Got)]).

buyer(S, Main, Name) ->
    R = case gen_server:call(S, left) of
            0 -> none;
            _ -> ok = gen_server:call(S, buy)
        end,
    Main ! {done, Name, R}.

init(N) -> {ok, N}.
handle_call(left, _From, N) -> {reply, N, N};
handle_call(buy, _From, N) when N > 0 -> {reply, ok, N - 1};
handle_call(buy, _From, N) -> {reply, sold_out, N}.
handle_cast(_, N) -> {noreply, N}.
