%% Golden cases for io_lib:format: the format string, the arguments (as
%% ETF) and the characters produced, or the error OTP raises.
-module(gen_format).
-export([main/1]).

main([Out]) ->
    common:write_file(Out, [case_lines(F, A) || {F, A} <- cases()]).

case_lines(Fmt, Args) ->
    Res = try {ok, lists:flatten(io_lib:format(Fmt, Args))}
          catch error:badarg -> {error, badarg}
          end,
    ["# ", common:esc(io_lib:format("~ts", [Fmt])), "\n",
     "fmt ", common:etf(Fmt), "\n",
     "args ", common:etf(Args), "\n",
     case Res of
         {ok, S} -> ["out ", common:esc(S), "\n"];
         {error, R} -> ["error ", atom_to_list(R), "\n"]
     end].

floats() ->
    [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, 0.125, 1.005, 9.9999, 99.995, 123.456, -123.456,
     1.0e-10, 1.0e10, 1.0e100, 3.141592653589793, 2.0/3, 0.05, 0.0004567, 6.02214076e23,
     1.7976931348623157e308, 5.0e-324, 1234.5678, 0.1, 0.999999, 9999.5, 1.0e4, 0.09999].

cases() ->
    Rec = {person, "Joe", 1950, [erlang, prolog], #{lang => erlang}},
    Long = lists:seq(1, 40),
    Nested = {state, [{k1, "value one"}, {k2, <<"value two">>}], #{counter => 42, items => Long}},
    [{"hello", []}, {"", []}, {"~~", []}, {"~n", []}, {"a~nb", []}, {"~i~w", [skipped, shown]},
     {"~w", [abc]}, {"~w ~w", [1, "two"]}, {"~p", ["str"]}, {"~lp", ["str"]}, {"~tp", ["caf\x{e9}"]},
     {"~p", ["\x{3b1}\x{3b2}"]}, {"~tp", ["\x{3b1}\x{3b2}"]}, {"~tp", [<<"\x{3b1}\x{3b2}"/utf8>>]},
     {"~p", [<<"\x{3b1}\x{3b2}"/utf8>>]}, {"~w", ['\x{3b1}']}, {"~tw", ['\x{3b1}']}, {"~p", ['\x{3b1}']},
     {"~tp", ['\x{3b1}']},
     {"~10w|", [abc]}, {"~-10w|", [abc]}, {"~.2w|", [abc]}, {"~10.2w|", [abc]}, {"~3w|", [abcdef]},
     {"~10..w|", [abc]}, {"~10.4.xw|", [abc]}, {"~-10.4.xw|", [abc]}, {"~*w|", [8, abc]},
     {"~-*w|", [8, abc]}, {"~*w|", [-8, abc]}, {"~*.*w|", [8, 2, abc]}, {"~10.*w|", [2, abc]},
     {"~s", ["abc"]}, {"~s", [<<"abc">>]}, {"~s", [abc]}, {"~s", [['a' | []]]}, {"~s", [[$a, [$b, <<"c">>], "d"]]},
     {"~s", [[$a | <<"b">>]]}, {"~s", [123]}, {"~s", ["\x{3b1}"]}, {"~ts", ["\x{3b1}"]}, {"~ts", [<<"\x{3b1}"/utf8>>]},
     {"~s", [<<"\x{3b1}"/utf8>>]}, {"~ts", [<<255>>]}, {"~ts", ['\x{3b1}']}, {"~s", ['\x{3b1}']},
     {"~10s|", ["abc"]}, {"~-10s|", ["abc"]}, {"~.2s|", ["abc"]}, {"~10.2s|", ["abc"]}, {"~2s|", ["abcdef"]},
     {"~10.5s|", ["abc"]}, {"~10.5.*s|", [$-, "abc"]}, {"~.5s|", ["abc"]}, {"~5.5s|", ["abcdefgh"]},
     {"~5.5s|", ["ab"]}, {"~-10.5s|", ["abc"]}, {"~ts|", [[16#3b1, <<"x">>]]}, {"~10ts|", ["\x{3b1}\x{3b2}"]},
     {"~c", [$a]}, {"~c", [300]}, {"~tc", [300]}, {"~5c|", [$a]}, {"~.3c|", [$a]}, {"~5.3c|", [$a]},
     {"~-5.3c|", [$a]}, {"~5.3.xc|", [$a]}, {"~c", [a]}, {"~tc", [16#3b1]},
     {"~b", [10]}, {"~B", [255]}, {"~.16B", [255]}, {"~.16b", [255]}, {"~.2B", [-5]}, {"~8.16.0B", [255]},
     {"~-8.16.0B|", [255]}, {"~.36B", [123456789]}, {"~.37B", [1]}, {"~.1B", [1]}, {"~B", [1 bsl 100]},
     {"~x", [255, "0x"]}, {"~.16x", [255, "0x"]}, {"~.16X", [255, "0x"]}, {"~.16x", [-255, "0x"]},
     {"~.16x", [255, pre]}, {"~.16x", [255, 7]}, {"~#", [255]}, {"~.16#", [255]}, {"~.16+", [255]},
     {"~.16#", [-255]}, {"~10.16#|", [255]}, {"~B", [1.0]}, {"~B", [abc]},
     {"~3B|", [123456]}, {"~.5B|", [10]},
     {"~f", [1]}, {"~e", [1]}, {"~g", [1]}, {"~.0f", [1.5]}, {"~.1e", [1.5]}, {"~.0g", [1.5]},
     {"~.1g", [1.5]}, {"~.1g", [0.5]}, {"~.1g", [0.05]},
     {"~3f|", [123.456]}, {"~20f|", [123.456]}, {"~-20f|", [123.456]}, {"~20.3.0f|", [-1.5]},
     {"~20.3e|", [123.456]}, {"~.30f", [0.1]}, {"~.30e", [0.1]}, {"~.20g", [0.1]},
     {"~w", []}, {"~w", [a, b]}, {"~z", [a]}, {"~", []}, {"abc~", []}, {"~-", [a]}, {"~.", [a]},
     {"~*w", [a, b]}, {"~W", [a]}, {"~W", [[1, 2, 3], a]}, {"~P", [x, 1.5]},
     {"~n~p", [[Long, Long]]}, {"abc~p", [[Long, Long]]}, {"\t~p", [[Long, Long]]},
     {"abc\t~p", [[Long, Long]]}, {"123456789\t~p", [[Long, Long]]}, {"ab\ncd~p", [[Long, Long]]},
     {"~p ~p", [Long, Long]}, {"~w ~p", [Long, Long]}, {"~s~p", [lists:duplicate(30, $x), Long]},
     {"~p~n", [Rec]}, {"~p", [Nested]}, {"~40p", [Nested]}, {"~20p", [Long]}, {"~-40p", [Nested]},
     {"~.10p", [Nested]}, {"~40.10p", [Nested]}, {"~0p", [Nested]}, {"~1p", [Nested]},
     {"~P", [Nested, 3]}, {"~P", [Nested, 5]}, {"~P", [Long, 5]}, {"~P", ["abcdef", 3]}, {"~P", [<<"abcdefghijklmn">>, 3]},
     {"~W", [Nested, 3]}, {"~W", [Long, 5]}, {"~W", [<<"abcdefghijkl">>, 3]}, {"~W", [#{a => 1, b => 2, c => 3}, 2]},
     {"~P", [#{a => 1, b => 2, c => 3}, 2]}, {"~lp", [[Long, "abc"]]}, {"~tp", [[Long, "\x{3b1}bc"]]},
     {"~p", [lists:duplicate(10, "a string of moderate length")]},
     {"~p", [{tag, lists:duplicate(10, "a string of moderate length")}]},
     {"~s and ~w and ~p", ["text", {1, 2}, [a, b]]},
     {[$~, $w, 16#3b1], [x]}, {"~w\x{e9}", [x]},
     {<<"bin ~w">>, [x]}, {'atom ~w', [x]}]
    ++ [{"~f ~e ~g ~w", [F, F, F, F]} || F <- floats()]
    ++ [{"~.2f ~.3e ~.3g ~12.4f|", [F, F, F, F]} || F <- floats()]
    ++ [{"~.1f ~.2e ~.1g ~.10g", [F, F, F, F]} || F <- floats()].
