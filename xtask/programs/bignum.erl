%% Bignums: factorials, Fibonacci numbers and powers with thousands of
%% digits, integer division and remainder, and printing them in decimal.
-module(bignum).
-export([main/0]).

main() ->
    F = fact(3000, 1),
    Fib = fib(20000, 0, 1),
    P = pow(7, 5000),
    Digits = length(integer_to_list(F)) + length(integer_to_list(Fib)),
    Mod = P rem 1000000007,
    Div = (F div Fib) rem 1000,
    G = gcd(F, P + 1),
    Sum = lists:foldl(fun(I, Acc) -> Acc + pow(3, I) * I end, 0, lists:seq(1, 600)),
    io:format("~p~n", [[Digits, Mod, Div, G, Sum rem 999983, digit_sum(F, 0)]]).

fact(0, Acc) -> Acc;
fact(N, Acc) -> fact(N - 1, Acc * N).

fib(0, A, _) -> A;
fib(N, A, B) -> fib(N - 1, B, A + B).

pow(_, 0) -> 1;
pow(B, E) when E rem 2 =:= 0 -> H = pow(B, E div 2), H * H;
pow(B, E) -> B * pow(B, E - 1).

gcd(A, 0) -> A;
gcd(A, B) -> gcd(B, A rem B).

digit_sum(0, Acc) -> Acc;
digit_sum(N, Acc) -> digit_sum(N div 10, Acc + N rem 10).
