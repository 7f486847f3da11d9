%% Text: io_lib:format with ~p, ~w, ~s, ~b and ~f over many terms, string
%% functions (tokens, join, split, trim, case) and integer/float text.
-module(format_bench).
-export([main/0]).

main() ->
    Terms = [{I, [I, I + 1], "str" ++ integer_to_list(I), I * 1.5, #{k => I}} || I <- lists:seq(1, 20000)],
    Lines = [io_lib:format("~p ~w ~s ~b ~.3f~n", [T, element(1, T), element(3, T), element(1, T), element(4, T)]) || T <- Terms],
    Bytes = iolist_size(Lines),
    Text = lists:flatten(lists:join(",", [integer_to_list(I) || I <- lists:seq(1, 30000)])),
    Toks = string:tokens(Text, ","),
    Parts = string:split(Text, ",", all),
    Upper = string:uppercase(lists:sublist(Text, 10000)),
    Trimmed = [string:trim("  " ++ T ++ "  ") || T <- lists:sublist(Toks, 20000)],
    Floats = [float_to_list(I / 7, [{decimals, 4}]) || I <- lists:seq(1, 20000)],
    Ints = lists:sum([list_to_integer(T) || T <- Toks]),
    io:format("~p~n", [[Bytes, length(Toks), length(Parts), length(Upper), length(Trimmed),
                        length(lists:flatten(Floats)), Ints]]).
