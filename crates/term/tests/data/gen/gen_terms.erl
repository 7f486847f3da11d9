%% Golden cases for decoding and printing: for each term its ETF bytes
%% and how ~w, ~p (at several start columns), ~tp, ~P and ~W print it.
-module(gen_terms).
-export([main/1]).

main([Out]) ->
    rand:seed(exsss, {20, 25, 2025}),
    Random = [common:gen_term(3) || _ <- lists:seq(1, 600)],
    %% Keep the file small: drop the few random terms that print huge.
    Terms = handmade() ++ [T || T <- Random, length(io_lib:format("~w", [T])) < 1500],
    common:write_file(Out, [case_lines(T) || T <- Terms]).

case_lines(T) ->
    Cols = [1, 10, 30, 60, 79],
    ["etf ", common:etf(T), "\n",
     "etf_default ", common:etf_default(T), "\n",
     "etf_v0 ", common:hex(term_to_binary(T, [{minor_version, 0}])), "\n",
     "w ", common:esc(io_lib:format("~w", [T])), "\n",
     [["p ", integer_to_list(C), " ", common:esc(at_column(C, "~p", [T])), "\n"] || C <- Cols],
     [["tp ", integer_to_list(C), " ", common:esc(at_column(C, "~tp", [T])), "\n"] || C <- [1, 40]],
     [["P ", integer_to_list(D), " ", common:esc(io_lib:format("~P", [T, D])), "\n"] || D <- [1, 2, 3, 5, 8]],
     [["W ", integer_to_list(D), " ", common:esc(io_lib:format("~W", [T, D])), "\n"] || D <- [1, 2, 3, 5]],
     "end\n"].

%% What ~p prints when the line already holds C-1 characters.
at_column(C, Fmt, Args) ->
    Out = lists:flatten(io_lib:format(lists:duplicate(C - 1, $x) ++ Fmt, Args)),
    lists:nthtail(C - 1, Out).

handmade() ->
    Long = lists:seq(1, 60),
    Rec = {person, "Joe Armstrong", 1950, [erlang, prolog], #{lang => erlang, year => 1986}},
    [0, 1, -1, 255, 256, -256, 2147483647, -2147483648, 2147483648, -2147483649,
     1 bsl 59, 1 bsl 63, (1 bsl 63) - 1, -(1 bsl 63), -(1 bsl 63) - 1, 1 bsl 64, 1 bsl 200, -(1 bsl 300),
     0.0, -0.0, 1.0, -1.5, 0.1, 1.0e-10, 1.0e15, 1.0e16, 123456789012345680.0,
     9007199254740992.0, 9007199254740991.0, 1.5e300, 2.5e-5, 0.001, 12345.678, 1.0e22,
     5.0e-324, 1.7976931348623157e308, 3.141592653589793, 100.0, 1.0e21, 123.456e10,
     ok, 'Abc', 'a b', 'if', 'end', 'when', 'maybe', 'else', 'é', 'ab\n', '', 'a@b', a_B9, '_x', 'x-y',
     '\'', '\\', '\x{3b1}lpha', 'ÿ', 'ß', '\x{7f}', '\x{80}',
     [], "", "abc", "line\nbreak", [1, 2, 3], [1, 2 | 3], [a | b], "caf\x{e9}", "\x{3b1}\x{3b2}",
     [255], [256], [7, 8, 9, 10, 11, 12, 13, 27], [127], [160], "\"quoted\"", "back\\slash",
     {}, {a}, {a, b}, {1, 2, 3}, {{a, b}, c}, #{}, #{a => 1}, #{1 => a, a => 1, 1.0 => b, "s" => x},
     <<>>, <<1, 2, 3>>, <<"abc">>, <<5:3>>, <<1, 2, 5:3>>, <<"text with \"quotes\"\n">>,
     <<255, 254>>, <<"caf\x{e9}">>, <<"caf\x{e9}"/utf8>>, <<"\x{3b1}\x{3b2}"/utf8>>, <<0:1>>,
     list_to_binary(lists:duplicate(100, $a)), list_to_binary(lists:seq(0, 255)),
     common:pid(0), common:pid(83), common:pid(12345), common:ref(0, 0), common:ref(83, 7),
     common:ref(4000000000, 200000), fun lists:map/2, fun erlang:'+'/2, fun 'A':'b c'/0,
     common:closure(gmod, 3, 12345, []), common:closure(gmod, 0, 99, [1, {x, y}, "s"]),
     Long, lists:seq(1000, 1060), [Long, Long], {Long}, {tag, Long}, {tag, Long, Long},
     Rec, [Rec, Rec], {Rec, Rec}, #{key => Rec, other => [Rec]},
     lists:duplicate(10, "a string of moderate length"),
     lists:duplicate(5, {some_tag, "some value", 42}),
     lists:duplicate(30, lists:duplicate(3, 1.5)),
     {a_very_long_tag_name_that_is_quite_long, [1, 2, 3], {x, y, z}, "string", <<"bin">>},
     {aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb},
     {1, {2, {3, {4, {5, {6, {7, {8, {9, {10, lists:seq(1, 30)}}}}}}}}}},
     [[[[[[[[[[lists:seq(1, 30)]]]]]]]]]],
     #{lists:seq(1, 30) => lists:seq(1, 30), {a, b} => #{nested => lists:seq(1, 40)}},
     #{a => 1, b => 2, c => 3, d => 4, e => 5, f => 6, g => 7, h => 8, i => 9, j => 10,
       k => 11, l => 12, m => 13, n => 14, o => 15, p => 16},
     lists:flatten(lists:duplicate(20, "abcdefghij")),
     lists:flatten(lists:duplicate(20, "abc\n")),
     list_to_binary(lists:flatten(lists:duplicate(20, "abcdefghij"))),
     list_to_binary(lists:seq(1, 100)),
     {[1, 2], "ab", <<"cd">>, #{}, [], {}},
     [{key1, value1}, {key2, "value2"}, {key3, <<"value3">>}, {key4, [a, b, c]},
      {key5, {nested, tuple, with, many, elements, in, it}}, {key6, 3.14}],
     [a | lists:seq(1, 40)] ++ improper_tail,
     {lists:seq(1, 40), lists:seq(1, 40)}].
