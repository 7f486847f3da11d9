%% Golden cases for number <-> text conversions, phash2 and phash: the function,
%% its arguments (as ETF) and the result (as ETF), or "error".
-module(gen_calls).
-export([main/1]).

main([Out]) ->
    rand:seed(exsss, {7, 8, 9}),
    common:write_file(Out, [call_lines(F, A) || {F, A} <- calls()]).

call_lines(F, Args) ->
    Res = try {ok, apply(erlang, F, Args)}
          catch error:_ -> error
          end,
    [atom_to_list(F), " ", common:etf(Args), " ",
     case Res of
         {ok, R} -> common:etf(R);
         error -> "error"
     end, "\n"].

ints() ->
    [0, 1, -1, 7, 10, 35, 36, 255, -255, 1000000, 1 bsl 59, -(1 bsl 59), (1 bsl 63) - 1, 1 bsl 63,
     -(1 bsl 63), 1 bsl 64, 1 bsl 100, -(1 bsl 100), 123456789012345678901234567890].

floats() ->
    [0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.0e-10, 1.0e10, 1.0e15, 1.0e16, 1.0e22, 1.0e23,
     123.456, -123.456, 2.5, 0.125, 1.005, 3.141592653589793, 2.0/3, 5.0e-324, 2.2250738585072014e-308,
     1.7976931348623157e308, 9007199254740991.0, 9007199254740992.0, 9007199254740993.0,
     123456789012345680.0, 1.0e21, 1.0e-5, 0.0001, 0.001, 100.0, 1.0e100, 6.02214076e23, 12345.678,
     4.35, 1.5e-7, 2.0e-7, 7.0e-8, 1.0e-7, 1234567.0, 0.30000000000000004]
    ++ [(rand:uniform() - 0.5) * math:pow(10, rand:uniform(80) - 40) || _ <- lists:seq(1, 200)]
    ++ [float(rand:uniform(1 bsl 60)) || _ <- lists:seq(1, 30)]
    ++ [rand:uniform(100000) / 100 || _ <- lists:seq(1, 30)].

strings_int() ->
    ["0", "123", "-123", "+123", "-0", "", "-", "+", "12a", " 1", "1 ", "1_000", "007",
     "99999999999999999999999999", "-99999999999999999999999999", "1.0", "\x{3b1}", "٣"].

strings_float() ->
    ["1.0", "-1.0", "+1.0", "1.0e10", "1.0E10", "1.0e+10", "1.0e-10", "1e10", "1.", ".5", "1",
     "0.1", "1.5e", "1.5e+", "inf", "nan", "1.0e400", "1.0e-400", " 1.0", "1.0 ", "1.0x", "01.50",
     "1_0.0", "1.0_0", "123456789.123456789e-5", "4.9e-324", "2.4e-324", "1.7976931348623157e308",
     "1.7976931348623159e308", "-0.0", "0.0e0", "1.0e", "1.0ee5", "--1.0", "1.0.0"].

calls() ->
    [{integer_to_list, [I]} || I <- ints()]
    ++ [{integer_to_list, [I, B]} || I <- ints(), B <- [2, 8, 16, 36]]
    ++ [{integer_to_list, [10, B]} || B <- [1, 37, 0]]
    ++ [{list_to_integer, [S]} || S <- strings_int()]
    ++ [{list_to_integer, [S, B]} || S <- ["ff", "FF", "-ff", "zz", "Zz", "12", "102", "", "+7f", "g"],
                                     B <- [2, 3, 16, 36]]
    ++ [{list_to_integer, ["12", B]} || B <- [1, 37]]
    ++ [{list_to_float, [S]} || S <- strings_float()]
    ++ [{float_to_list, [F]} || F <- floats()]
    ++ [{float_to_list, [F, O]} || F <- floats(),
                                  O <- [[short], [{decimals, 0}], [{decimals, 2}], [{decimals, 10}],
                                        [{decimals, 2}, compact], [{decimals, 10}, compact],
                                        [{scientific, 0}], [{scientific, 3}], [{scientific, 20}],
                                        [compact], []]]
    ++ [{float_to_list, [1.5, O]} || O <- [[{decimals, 253}], [{decimals, 254}], [{scientific, 249}],
                                          [{scientific, 250}], [{decimals, -1}], [bad], [{decimals, 2}, short]]]
    ++ [{float_to_list, [1.0e300, [{decimals, 2}]]}]
    ++ [{phash2, [T]} || T <- phash_terms()]
    ++ [{phash2, [T, R]} || T <- lists:sublist(phash_terms(), 60), R <- [1, 7, 1000, 1 bsl 32]]
    ++ phash_calls().

%% On a random state of their own, so that the cases before them stay as
%% they were.
phash_calls() ->
    Outer = rand:export_seed(),
    rand:seed(exsss, {10, 11, 12}),
    Calls = [{phash, [T, R]} || T <- phash_terms(), R <- [16, 1 bsl 32]]
        ++ [{phash, [a, R]} || R <- [1, 0, -1, (1 bsl 32) + 1, x, 2.0]],
    rand:seed(Outer),
    Calls.

phash_terms() ->
    [0, 1, -1, 255, 256, 1 bsl 27, 1 bsl 28, (1 bsl 59) - 1, 1 bsl 59, 1 bsl 63, -(1 bsl 63), 1 bsl 64,
     1 bsl 100, -(1 bsl 100), 0.0, -0.0, 1.0, 0.5, -3.25, 1.0e300, a, ok, 'hello world', '', '\x{3b1}',
     [], "abc", [1, 2, 3], [a, b | c], "", {}, {a}, {a, b, c}, #{}, #{a => 1}, #{a => 1, b => 2},
     #{1 => a, 2 => b, 3 => c, 4 => d}, <<>>, <<1>>, <<1, 2, 3>>, <<"hello world">>, <<1:1>>, <<1, 2:7>>,
     list_to_binary(lists:seq(0, 255)), common:pid(0), common:pid(83), common:ref(83, 7),
     fun lists:map/2, [256, 257], [1 | 2], {[], {}}, lists:seq(1, 100)]
    ++ [common:gen_term(3) || _ <- lists:seq(1, 150)]
    ++ [maps:from_list([{I, I * I} || I <- lists:seq(1, N)]) || N <- [10, 33, 40]].
