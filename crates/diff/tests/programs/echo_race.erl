%% The echo/target race of seed 003 (Fig. 3.2), in our own words: main sends
%% `hello` to target and `{Target, world}` to echo, which forwards `world`.
%% Target takes whichever comes first and crashes unless it is hello.
-module(echo_race).
-export([main/0]).

main() ->
    Echo = spawn(fun echo/0),
    Target = spawn(fun target/0),
    Target ! hello,
    Echo ! {Target, world},
    ok.

target() ->
    receive
        A -> receive B -> {hello, world} = {A, B} end
    end.

echo() ->
    receive {P, M} -> P ! M end.
