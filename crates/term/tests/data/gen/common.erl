%% Helpers shared by the golden-data generators: deterministic terms
%% (pids, refs and closures built from crafted ETF bytes so that every
%% run of the generator gives the same file) and the text encoding of
%% the data files (see ../README.md).
-module(common).
-export([pid/1, ref/2, closure/4, hex/1, esc/1, etf/1, etf_default/1,
         gen_term/1, write_file/2]).

%% <0.N.0> as NEW_PID_EXT on node nonode@nohost.
pid(N) ->
    binary_to_term(<<131, 88, 119, 13, "nonode@nohost", N:32, 0:32, 0:32>>).

%% #Ref<0.0.P.C>: NEWER_REFERENCE_EXT with id words [C, P, 0].
ref(P, C) ->
    binary_to_term(<<131, 90, 3:16, 119, 13, "nonode@nohost", 0:32,
                     C:32, P:32, 0:32>>).

%% A closure #Fun<Mod.Index.Uniq> with free variables, as NEW_FUN_EXT.
closure(Mod, Index, Uniq, Free) ->
    ModB = atom_to_binary(Mod, utf8),
    PidB = <<88, 119, 13, "nonode@nohost", 0:32, 0:32, 0:32>>,
    FreeB = << <<(ext(F))/binary>> || F <- Free >>,
    Body = <<1, Uniq:32, 0:96, Index:32, (length(Free)):32,
             119, (byte_size(ModB)), ModB/binary,
             98, Index:32, 98, Uniq:32, PidB/binary, FreeB/binary>>,
    binary_to_term(<<131, 112, (byte_size(Body) + 4):32, Body/binary>>).

ext(T) -> <<131, B/binary>> = term_to_binary(T, [{minor_version, 2}]), B.

hex(Bin) -> [io_lib:format("~2.16.0b", [B]) || <<B>> <= Bin].

%% Escapes backslash and newline so one text fits on one line.
esc(Chars) ->
    lists:flatmap(fun($\\) -> "\\\\"; ($\n) -> "\\n"; (C) -> [C] end,
                  lists:flatten(Chars)).

etf(T) -> hex(term_to_binary(T, [{minor_version, 2}])).
etf_default(T) -> hex(term_to_binary(T)).

write_file(Name, Lines) ->
    ok = file:write_file(Name, unicode:characters_to_binary(Lines)).

%% Random terms of bounded depth, for the printing and ETF golden cases.
gen_term(0) -> leaf();
gen_term(D) ->
    case rand:uniform(12) of
        N when N =< 3 -> leaf();
        4 -> [gen_term(D - 1) || _ <- lists:seq(1, rand:uniform(7) - 1)];
        5 -> list_to_tuple([gen_term(D - 1) || _ <- lists:seq(1, rand:uniform(6) - 1)]);
        6 -> maps:from_list([{gen_term(D - 1), gen_term(D - 1)}
                             || _ <- lists:seq(1, rand:uniform(5) - 1)]);
        7 -> list_to_tuple([atom() | [gen_term(D - 1) || _ <- lists:seq(1, rand:uniform(5))]]);
        8 -> [gen_term(D - 1) || _ <- lists:seq(1, rand:uniform(4))] ++ leaf();
        9 -> [rand:uniform(300) || _ <- lists:seq(1, rand:uniform(40))];
        10 -> lists:duplicate(rand:uniform(12), leaf());
        11 -> [{atom(), gen_term(D - 1)} || _ <- lists:seq(1, rand:uniform(6))];
        12 -> string()
    end.

leaf() ->
    case rand:uniform(16) of
        1 -> rand:uniform(1000) - 500;
        2 -> rand:uniform(1 bsl 40) * (1 bsl rand:uniform(100)) * (rand:uniform(3) - 2);
        3 -> (rand:uniform() - 0.5) * math:pow(10, rand:uniform(60) - 30);
        4 -> atom();
        5 -> string();
        6 -> list_to_binary(string_latin1());
        7 -> list_to_binary([rand:uniform(256) - 1 || _ <- lists:seq(1, rand:uniform(12))]);
        8 -> <<(rand:uniform(1000)):(rand:uniform(20))>>;
        9 -> pid(rand:uniform(500));
        10 -> ref(rand:uniform(500), rand:uniform(100000));
        11 -> [];
        12 -> {};
        13 -> unicode:characters_to_binary(string());
        14 -> string_latin1();
        15 -> fun lists:map/2;
        16 -> rand:uniform(255)
    end.

atom() ->
    element(rand:uniform(12),
            {ok, error, 'Quoted', 'with space', 'if', 'a@b', 'é', 'x_1', '', '\n', longer_atom_name, 'ünïcödé'}).

string() ->
    element(rand:uniform(9),
            {"hello", "", "line\nbreak", "tab\there", "quote\"s", "caf\x{e9}",
             "\x{3b1}\x{3b2}\x{3b3}", "a somewhat longer string that goes on and on for a while",
             [1, 2, 3]}).

string_latin1() ->
    element(rand:uniform(5), {"abc", "x", "with \"quotes\" and \\", "\x{ff}\x{e0}", "ctl\x{7}"}).
