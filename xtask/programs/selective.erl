%% Benchmark: a mailbox-heavy selective receive. N messages arrive in order
%% 1..N and are taken in order N..1, each receive scanning past every
%% message still waiting (N^2/2 match attempts).
-module(selective).
-export([main/0, main/1]).

main() -> main(5000).

main(N) ->
    Me = self(),
    spawn(fun() -> send_all(Me, 1, N) end),
    wait_for(N),
    Sum = take_reverse(N, 0),
    io:format("sum ~p~n", [Sum]).

send_all(To, I, N) when I > N -> To ! all_sent;
send_all(To, I, N) -> To ! {msg, I}, send_all(To, I + 1, N).

%% Every message is in the mailbox before the scanning starts.
wait_for(_N) -> receive all_sent -> ok end.

take_reverse(0, Acc) -> Acc;
take_reverse(I, Acc) ->
    receive {msg, I} -> take_reverse(I - 1, Acc + I) end.
