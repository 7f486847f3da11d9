%% proc_lib: processes that follow OTP's design principles (written from
%% OTP 25's documentation). A process it starts keeps '$ancestors' and
%% '$initial_call' in its dictionary, starts synchronously when asked
%% (init_ack/1,2 answers {ack, Pid, Return}), and ends with a crash report
%% on stderr when it dies of anything but normal, shutdown or
%% {shutdown, _}. Spawning on another node is not supported (no such
%% functions here: calls to them are reported as unsupported).
-module(proc_lib).
-export([spawn/1, spawn/3, spawn_link/1, spawn_link/3, spawn_opt/2,
         spawn_opt/4, start/3, start/4, start/5, start_link/3, start_link/4,
         start_link/5, start_monitor/3, start_monitor/4, start_monitor/5,
         init_ack/1, init_ack/2, init_p/3, init_p/5, hibernate/3,
         wake_up/3, initial_call/1, translate_initial_call/1, stop/1,
         stop/3, format/1, format/2, format/3, report_cb/2]).
-export([crash_report_text/1, exception_text/4]).

spawn(F) when is_function(F) ->
    erlang:spawn(?MODULE, init_p, [get_my_name(), get_ancestors(), F]).

spawn(M, F, A) when is_atom(M), is_atom(F), is_list(A) ->
    erlang:spawn(?MODULE, init_p, [get_my_name(), get_ancestors(), M, F, A]).

spawn_link(F) when is_function(F) ->
    erlang:spawn_link(?MODULE, init_p, [get_my_name(), get_ancestors(), F]).

spawn_link(M, F, A) when is_atom(M), is_atom(F), is_list(A) ->
    erlang:spawn_link(?MODULE, init_p,
                      [get_my_name(), get_ancestors(), M, F, A]).

spawn_opt(F, Opts) when is_function(F), is_list(Opts) ->
    no_monitor_option(Opts),
    erlang:spawn_opt(?MODULE, init_p, [get_my_name(), get_ancestors(), F],
                     Opts).

spawn_opt(M, F, A, Opts) when is_atom(M), is_atom(F), is_list(A) ->
    no_monitor_option(Opts),
    spawn_with(M, F, A, Opts).

spawn_with(M, F, A, Opts) ->
    erlang:spawn_opt(?MODULE, init_p,
                     [get_my_name(), get_ancestors(), M, F, A], Opts).

%% As in OTP, monitor options belong to start_monitor/3,4,5.
no_monitor_option(Opts) ->
    case lists:member(monitor, Opts) of
        true -> erlang:error(badarg);
        false -> ok
    end.

init_p(Parent, Ancestors, F) when is_function(F) ->
    put('$ancestors', [Parent | Ancestors]),
    put('$initial_call', fun_mfa(F)),
    try F()
    catch Class:Reason:Stack -> exit_p(Class, Reason, Stack)
    end.

init_p(Parent, Ancestors, M, F, A) ->
    put('$ancestors', [Parent | Ancestors]),
    put('$initial_call', trans_init(M, F, A)),
    init_p_do_apply(M, F, A).

init_p_do_apply(M, F, A) ->
    try apply(M, F, A)
    catch Class:Reason:Stack -> exit_p(Class, Reason, Stack)
    end.

fun_mfa(F) ->
    {module, M} = erlang:fun_info(F, module),
    {name, N} = erlang:fun_info(F, name),
    {arity, A} = erlang:fun_info(F, arity),
    {M, N, A}.

%% The initial call a report shows: the callback module's init/1 for the
%% generic behaviours, as OTP's reports show it. gen:init_it/6 has no name,
%% gen:init_it/7 has one before the module.
trans_init(gen, init_it, [Gen, _, _ | Rest]) when length(Rest) =:= 3;
                                                 length(Rest) =:= 4 ->
    Mod = case Rest of
              [M, A, _] -> {M, A};
              [_, M, A, _] -> {M, A}
          end,
    gen_initial_call(Gen, Mod);
trans_init(M, F, A) when is_atom(M), is_atom(F) ->
    {M, F, length(A)}.

%% (The module names are taken from the arguments rather than written
%% here: a program gets the prelude modules its code names.)
gen_initial_call(gen_server, {supervisor = Sup, {_, Mod, _}}) -> {Sup, Mod, 1};
gen_initial_call(gen_server, {supervisor_bridge = Bridge, [Mod | _]}) ->
    {Bridge, Mod, 1};
gen_initial_call(gen_event = Gen, _) -> {Gen, init_it, 6};
gen_initial_call(_, {Mod, _}) -> init_of(Mod).

init_of(Mod) when is_atom(Mod) -> {Mod, init, 1};
init_of(_) -> {unknown, init, 1}.

%% The process dies: a crash report unless the reason is a normal one, then
%% the exit OTP gives ({Reason, Stack} for an error).
exit_p(Class, Reason, Stack) ->
    case get('$initial_call') of
        {M, F, A} when is_atom(M), is_atom(F), is_integer(A) ->
            crash_report(Class, Reason, {M, F, dummy_args(A)}, Stack);
        _ ->
            crash_report(Class, Reason, [], Stack)
    end,
    erlang:raise(exit, exit_reason(Class, Reason, Stack), Stack).

exit_reason(error, Reason, Stack) -> {Reason, Stack};
exit_reason(exit, Reason, _Stack) -> Reason;
exit_reason(throw, Reason, Stack) -> {{nocatch, Reason}, Stack}.

dummy_args(N) ->
    [list_to_atom("Argument__" ++ integer_to_list(I)) || I <- lists:seq(1, N)].

crash_report(exit, normal, _, _) -> ok;
crash_report(exit, shutdown, _, _) -> ok;
crash_report(exit, {shutdown, _}, _, _) -> ok;
crash_report(Class, Reason, StartF, Stack) ->
    Report = [my_info(Class, Reason, StartF, Stack), []],
    logger:error(#{label => {proc_lib, crash}, report => Report},
                 #{domain => [otp, sasl],
                   report_cb => fun proc_lib:report_cb/2,
                   logger_formatter => #{title => "CRASH REPORT"},
                   error_logger => #{tag => error_report,
                                     type => crash_report}}).

my_info(Class, Reason, StartF, Stack) ->
    Self = self(),
    Name = case process_info(Self, registered_name) of
               {registered_name, N} -> N;
               _ -> []
           end,
    [{initial_call, StartF}, {pid, Self}, {registered_name, Name},
     {error_info, {Class, Reason, Stack}},
     {ancestors, case get('$ancestors') of undefined -> []; As -> As end}
     | [case process_info(Self, Item) of
            %% proc_lib's own entries are not shown, as in OTP.
            {dictionary, D} ->
                {dictionary, [KV || {K, _} = KV <- D, K =/= '$ancestors',
                                    K =/= '$initial_call']};
            Info -> Info
        end
        || Item <- [message_queue_len, messages, links, dictionary,
                    trap_exit, status, heap_size, stack_size, reductions]]].

%% Synchronous starts: the new process answers with init_ack/1,2.
start(M, F, A) -> start(M, F, A, infinity).
start(M, F, A, Timeout) -> start(M, F, A, Timeout, []).
start(M, F, A, Timeout, Opts) when is_atom(M), is_atom(F), is_list(A) ->
    no_monitor_option(Opts),
    {Pid, Ref} = spawn_with(M, F, A, [monitor | Opts]),
    sync_start_monitored(Pid, Ref, Timeout, false).

start_link(M, F, A) -> start_link(M, F, A, infinity).
start_link(M, F, A, Timeout) -> start_link(M, F, A, Timeout, []).
start_link(M, F, A, Timeout, Opts) when is_atom(M), is_atom(F), is_list(A) ->
    no_monitor_option(Opts),
    Pid = spawn_with(M, F, A, [link | Opts]),
    receive
        {ack, Pid, Return} -> Return;
        {'EXIT', Pid, Reason} -> {error, Reason}
    after Timeout ->
            kill_flush(Pid),
            {error, timeout}
    end.

start_monitor(M, F, A) -> start_monitor(M, F, A, infinity).
start_monitor(M, F, A, Timeout) -> start_monitor(M, F, A, Timeout, []).
start_monitor(M, F, A, Timeout, Opts) when is_atom(M), is_atom(F), is_list(A) ->
    no_monitor_option(Opts),
    {Pid, Ref} = spawn_with(M, F, A, [monitor | Opts]),
    {sync_start_monitored(Pid, Ref, Timeout, true), Ref}.

sync_start_monitored(Pid, Ref, Timeout, Keep) ->
    receive
        {ack, Pid, Return} ->
            case Keep of
                true -> ok;
                false -> erlang:demonitor(Ref, [flush])
            end,
            Return;
        {'DOWN', Ref, process, Pid, Reason} ->
            case Keep of
                %% start_monitor's caller gets the 'DOWN' too.
                true -> self() ! {'DOWN', Ref, process, Pid, Reason};
                false -> ok
            end,
            {error, Reason}
    after Timeout ->
            case Keep of
                true -> ok;
                false -> erlang:demonitor(Ref, [flush])
            end,
            kill_flush(Pid),
            {error, timeout}
    end.

kill_flush(Pid) ->
    unlink(Pid),
    exit(Pid, kill),
    receive {'EXIT', Pid, _} -> ok after 0 -> ok end,
    ok.

init_ack(Return) ->
    [Parent | _] = get('$ancestors'),
    init_ack(Parent, Return).

init_ack(Parent, Return) ->
    Parent ! {ack, self(), Return},
    ok.

hibernate(M, F, A) ->
    erlang:hibernate(?MODULE, wake_up, [M, F, A]).

wake_up(M, F, A) ->
    try apply(M, F, A)
    catch Class:Reason:Stack -> exit_p(Class, Reason, Stack)
    end.

%% The initial call of a process started by proc_lib, from its dictionary.
initial_call(DictOrPid) ->
    case get_dictionary(DictOrPid, '$initial_call') of
        {M, F, A} -> {M, F, dummy_args(A)};
        _ -> false
    end.

translate_initial_call(DictOrPid) ->
    case get_dictionary(DictOrPid, '$initial_call') of
        {_, _, _} = MFA -> MFA;
        _ -> {?MODULE, init_p, 5}
    end.

get_dictionary(Pid, Tag) when is_pid(Pid) ->
    case process_info(Pid, dictionary) of
        {dictionary, Dict} -> get_dictionary(Dict, Tag);
        _ -> undefined
    end;
get_dictionary(Dict, Tag) when is_list(Dict) ->
    case lists:keyfind(Tag, 1, Dict) of
        {Tag, Value} -> Value;
        false -> undefined
    end.

%% stop/1,3: a helper process asks the process to terminate (a system
%% message, as sys:terminate/3 sends it) while the caller monitors it.
stop(Process) -> stop(Process, normal, infinity).

stop(Process, Reason, Timeout) ->
    Mref = erlang:monitor(process, Process),
    Stopper = fun() ->
                      try sys:terminate(Process, Reason, infinity) of
                          _ -> ok
                      catch exit:_ -> ok
                      end
              end,
    {Pid, HelperRef} = erlang:spawn_monitor(Stopper),
    receive
        {'DOWN', Mref, _, _, Reason} ->
            stop_helper_done(HelperRef),
            ok;
        {'DOWN', Mref, _, _, Other} ->
            stop_helper_done(HelperRef),
            exit(Other)
    after Timeout ->
            exit(Pid, kill),
            stop_helper_done(HelperRef),
            erlang:demonitor(Mref, [flush]),
            exit(timeout)
    end.

stop_helper_done(Ref) ->
    receive {'DOWN', Ref, _, _, _} -> ok end.

%% The caller's registered name, or its pid: what its children keep in
%% '$ancestors'.
get_my_name() ->
    case process_info(self(), registered_name) of
        {registered_name, Name} -> Name;
        _ -> self()
    end.

get_ancestors() ->
    case get('$ancestors') of
        A when is_list(A) -> A;
        _ -> []
    end.

%% Crash reports as text, as logger prints them.
format(CrashReport) -> format(CrashReport, latin1).
format(CrashReport, Encoding) -> format(CrashReport, Encoding, unlimited).
format([OwnReport, LinkReport], _Encoding, _Depth) ->
    lists:flatten(crash_report_text([OwnReport, LinkReport])).

report_cb(#{label := {proc_lib, crash}, report := Report}, _Config) ->
    crash_report_text(Report).

crash_report_text([OwnReport, LinkReport]) ->
    ["  crasher:\n", [info_line(I) || I <- OwnReport],
     "  neighbours:\n", [neighbour(N) || N <- LinkReport]].

info_line({initial_call, {M, F, Args}}) when is_list(Args) ->
    io_lib:format("    initial call: ~tw:~tw/~w~n", [M, F, length(Args)]);
info_line({initial_call, []}) ->
    "    initial call: []\n";
info_line({error_info, {Class, Reason, Stack}}) ->
    exception_text(Class, Reason, Stack, 4);
info_line({Key, Value}) ->
    io_lib:format("    ~tw: ~tp~n", [Key, Value]).

neighbour(Info) ->
    ["    neighbour:\n",
     [io_lib:format("      ~tw: ~tp~n", [K, V]) || {K, V} <- Info]].

%% The text erl's shell and crash reports give an exception: what went
%% wrong, then where, innermost call first (proc_lib's own frames left out).
exception_text(Class, Reason, Stack, Indent) ->
    Pad = lists:duplicate(Indent, $\s),
    [Pad, "exception ", atom_to_list(Class), ": ",
     describe(Class, Reason), "\n",
     stack_lines(user_frames(Stack), Pad ++ "  ", "in function  ")].

describe(error, Reason) -> describe_error(Reason);
describe(_, Reason) -> io_lib:format("~tp", [Reason]).

describe_error(badarith) ->
    "an error occurred when evaluating an arithmetic expression";
describe_error(badarg) -> "bad argument";
describe_error({badmatch, V}) ->
    io_lib:format("no match of right hand side value ~tp", [V]);
describe_error(function_clause) -> "no function clause matching call";
describe_error({case_clause, V}) ->
    io_lib:format("no case clause matching ~tp", [V]);
describe_error(if_clause) ->
    "no true branch found when evaluating an if expression";
describe_error({try_clause, V}) ->
    io_lib:format("no try clause matching ~tp", [V]);
describe_error(undef) -> "undefined function";
describe_error({badfun, F}) -> io_lib:format("bad function ~tp", [F]);
describe_error({badarity, {F, Args}}) ->
    io_lib:format("~tp called with ~w arguments", [F, length(Args)]);
describe_error(timeout_value) -> "bad receive timeout value";
describe_error(noproc) -> "no such process or port";
describe_error(system_limit) -> "a system limit has been reached";
describe_error({badmap, M}) -> io_lib:format("bad map: ~tp", [M]);
describe_error({badkey, K}) -> io_lib:format("bad key: ~tp", [K]);
describe_error({badrecord, R}) -> io_lib:format("bad record ~tp", [R]);
describe_error(Other) -> io_lib:format("~tp", [Other]).

user_frames(Stack) ->
    [F || {M, _, _, _} = F <- Stack,
          M =/= proc_lib, M =/= trace_prelude].

stack_lines([], _Pad, _What) -> [];
stack_lines([{M, F, A, Loc} | Rest], Pad, What) ->
    Arity = if is_list(A) -> length(A); true -> A end,
    [io_lib:format("~s~s~tw:~tw/~w~s~n", [Pad, What, M, F, Arity, location(Loc)])
     | stack_lines(Rest, Pad, "in call from ")].

location(Loc) ->
    case {lists:keyfind(file, 1, Loc), lists:keyfind(line, 1, Loc)} of
        {{file, File}, {line, Line}} ->
            io_lib:format(" (~ts, line ~w)", [File, Line]);
        _ -> ""
    end.
