%% Binaries: encoding integers into a binary with segments, decoding it
%% back with matching, binary comprehensions, and term_to_binary round trips.
-module(binaries_bench).
-export([main/0]).

main() ->
    N = 200000,
    Bin = encode(lists:seq(1, N), <<>>),
    Dec = decode(Bin, []),
    Bytes = << <<(X band 255)>> || X <- lists:seq(1, N) >>,
    Back = [B || <<B>> <= Bytes],
    Sum = sum_bytes(Bytes, 0),
    Packets = [<<I:16, (I rem 256):8, "payload", I:32/little>> || I <- lists:seq(1, 50000)],
    Parsed = [{Id, Len} || <<Id:16, Len:8, _:7/binary, _:32/little>> <- Packets],
    Etf = [binary_to_term(term_to_binary({I, [I], <<"x">>})) || I <- lists:seq(1, 20000)],
    io:format("~p~n", [[byte_size(Bin), length(Dec), lists:last(Dec), length(Back), Sum,
                        length(Parsed), length(Etf)]]).

encode([], Acc) -> Acc;
encode([X | Xs], Acc) -> encode(Xs, <<Acc/binary, X:32, (X rem 7):8>>).

decode(<<X:32, _:8, Rest/binary>>, Acc) -> decode(Rest, [X | Acc]);
decode(<<>>, Acc) -> lists:reverse(Acc).

sum_bytes(<<B, Rest/binary>>, Acc) -> sum_bytes(Rest, Acc + B);
sum_bytes(<<>>, Acc) -> Acc.
